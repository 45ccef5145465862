package gpupricetest

import (
	"math"
	"strings"
	"time"
)

// gpuModel is a GPU model of the fake's price universe.
type gpuModel struct {
	id string
	// vramGB is the model's memory.
	vramGB int
	// h100Equivalent is the model's compute in H100s, the futures index's unit.
	h100Equivalent float64
	// spot is the model's spot price in USD per GPU-hour, the base of every other price.
	spot float64
	// weight is the model's weight in the futures index, in thousandths.
	weight int
	// onDemand says whether the model is in the on-demand price table.
	onDemand bool
}

// models are the 14 models of the futures index; the 9 marked onDemand make the on-demand
// table. The weights add up to 1,000.
var models = []gpuModel{
	{"B200", 192, 2.5, 5.49, 120, true},
	{"H200", 141, 1.35, 3.69, 130, true},
	{"H100", 80, 1.0, 2.49, 280, true},
	{"GH200", 96, 1.2, 3.19, 40, false},
	{"MI300X", 192, 1.1, 2.89, 50, false},
	{"A100-80GB", 80, 0.45, 1.39, 150, true},
	{"A100-40GB", 40, 0.38, 1.09, 60, true},
	{"L40S", 48, 0.33, 0.99, 60, true},
	{"A6000", 48, 0.25, 0.79, 30, false},
	{"RTX-4090", 24, 0.22, 0.59, 30, true},
	{"A10G", 24, 0.16, 0.69, 20, true},
	{"L4", 24, 0.14, 0.49, 20, true},
	{"V100", 32, 0.12, 0.39, 5, false},
	{"T4", 16, 0.06, 0.29, 5, false},
}

// platform is a compute provider of the fake's directory.
type platform struct {
	id      string
	name    string
	kind    string
	website string
	// markup is the on-demand price over the spot price; zero for a platform outside the
	// on-demand table.
	markup float64
}

// platforms are the 23 providers of the futures index; the first 6 make the on-demand table.
var platforms = []platform{
	{"aws", "Amazon Web Services", "hyperscaler", "https://aws.amazon.com", 2.20},
	{"azure", "Microsoft Azure", "hyperscaler", "https://azure.microsoft.com", 2.05},
	{"gcp", "Google Cloud", "hyperscaler", "https://cloud.google.com", 1.95},
	{"coreweave", "CoreWeave", "gpu-cloud", "https://www.coreweave.com", 1.25},
	{"lambda", "Lambda", "gpu-cloud", "https://lambda.ai", 1.20},
	{"runpod", "RunPod", "marketplace", "https://www.runpod.io", 1.10},
	{"oracle", "Oracle Cloud", "hyperscaler", "https://www.oracle.com/cloud", 0},
	{"vastai", "Vast.ai", "marketplace", "https://vast.ai", 0},
	{"tensordock", "TensorDock", "marketplace", "https://www.tensordock.com", 0},
	{"paperspace", "Paperspace", "gpu-cloud", "https://www.paperspace.com", 0},
	{"fluidstack", "FluidStack", "gpu-cloud", "https://www.fluidstack.io", 0},
	{"crusoe", "Crusoe", "gpu-cloud", "https://crusoe.ai", 0},
	{"together", "Together AI", "gpu-cloud", "https://www.together.ai", 0},
	{"nebius", "Nebius", "gpu-cloud", "https://nebius.com", 0},
	{"vultr", "Vultr", "cloud", "https://www.vultr.com", 0},
	{"genesis-cloud", "Genesis Cloud", "gpu-cloud", "https://www.genesiscloud.com", 0},
	{"datacrunch", "DataCrunch", "gpu-cloud", "https://datacrunch.io", 0},
	{"hyperstack", "Hyperstack", "gpu-cloud", "https://www.hyperstack.cloud", 0},
	{"jarvislabs", "JarvisLabs", "gpu-cloud", "https://jarvislabs.ai", 0},
	{"latitude", "Latitude.sh", "bare-metal", "https://www.latitude.sh", 0},
	{"ovhcloud", "OVHcloud", "cloud", "https://www.ovhcloud.com", 0},
	{"scaleway", "Scaleway", "cloud", "https://www.scaleway.com", 0},
	{"voltage-park", "Voltage Park", "gpu-cloud", "https://www.voltagepark.com", 0},
}

// The sizes of the data sets.
const (
	onDemandModels    = 9
	onDemandPlatforms = 6
	historyDays       = 365
	bookLevels        = 10
	recentMatches     = 5
)

// onDemandPrice returns the on-demand price of model i on platform j of the table, in USD
// per hour: the spot price times the platform's markup, nudged by up to 10% either way so
// that the cheapest platform differs between models.
func onDemandPrice(i, j int) float64 {
	nudge := 1 + float64((i*4+j*7)%5-2)*0.05
	return round(models[i].spot*platforms[j].markup*nudge, 2)
}

// onDemandIndexes returns the indexes of the models of the on-demand table.
func onDemandIndexes() []int {
	var out []int
	for i, m := range models {
		if m.onDemand {
			out = append(out, i)
		}
	}
	return out
}

// findModel returns the index of the model named id (case-insensitively), or -1. With
// onDemandOnly it finds only models of the on-demand table.
func findModel(id string, onDemandOnly bool) int {
	for i, m := range models {
		if strings.EqualFold(m.id, id) && (m.onDemand || !onDemandOnly) {
			return i
		}
	}
	return -1
}

// findPlatform returns the index of the on-demand platform named id (case-insensitively),
// or -1.
func findPlatform(id string) int {
	for j := range onDemandPlatforms {
		if strings.EqualFold(platforms[j].id, id) {
			return j
		}
	}
	return -1
}

// modelIDs returns the ids of the models, only those of the on-demand table with
// onDemandOnly, for error messages.
func modelIDs(onDemandOnly bool) string {
	var ids []string
	for _, m := range models {
		if m.onDemand || !onDemandOnly {
			ids = append(ids, m.id)
		}
	}
	return strings.Join(ids, ", ")
}

// platformIDs returns the ids of the on-demand platforms, for error messages.
func platformIDs() string {
	var ids []string
	for _, p := range platforms[:onDemandPlatforms] {
		ids = append(ids, p.id)
	}
	return strings.Join(ids, ", ")
}

// platformsQuoting returns how many of the 23 platforms quote model i: the newest and
// largest models are quoted by fewer.
func platformsQuoting(i int) int {
	return len(platforms) - (i*5)%11
}

// indexValue returns the futures index: the weighted mean of the components' prices per
// H100-equivalent hour.
func indexValue() float64 {
	var sum float64
	for _, m := range models {
		sum += float64(m.weight) / 1000 * m.spot / m.h100Equivalent
	}
	return round(sum, 4)
}

// The futures index's half spread, as a fraction of its value.
const indexHalfSpread = 0.0025

// historicalPrice returns the on-demand price of model i on platform j at the daily
// snapshot of day (midnight UTC): prices were higher in the past, with a weekly wobble.
func historicalPrice(i, j int, day, today time.Time) float64 {
	daysAgo := today.Sub(day).Hours() / 24
	wobble := 0.02 * math.Sin(float64(day.Unix()/86400+int64(3*i+j))/1.3)
	return round(onDemandPrice(i, j)*(1+0.0015*daysAgo+wobble), 2)
}

// round rounds x to the given number of decimals.
func round(x float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(x*p) / p
}

// midnightUTC returns the start of t's UTC day.
func midnightUTC(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}
