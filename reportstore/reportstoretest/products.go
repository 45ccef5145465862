package reportstoretest

import (
	"math/big"

	"github.com/agentapis/sdk/reportstore"
	"github.com/agentapis/sdk/x402/usdc"
)

// economy is one economy of the synthetic data.
type economy struct {
	code, name string
}

// economies are the 20 economies of the store's standard coverage (the G20 members that are
// countries, plus Spain); the first 10 are its narrower coverage.
var economies = []economy{
	{"US", "United States"}, {"CN", "China"}, {"JP", "Japan"}, {"DE", "Germany"}, {"IN", "India"},
	{"GB", "United Kingdom"}, {"FR", "France"}, {"BR", "Brazil"}, {"RU", "Russian Federation"}, {"KR", "Korea, Rep."},
	{"CA", "Canada"}, {"IT", "Italy"}, {"MX", "Mexico"}, {"ID", "Indonesia"}, {"TR", "Turkiye"},
	{"SA", "Saudi Arabia"}, {"AU", "Australia"}, {"ZA", "South Africa"}, {"AR", "Argentina"}, {"ES", "Spain"},
}

// Years of the synthetic panel.
const (
	firstYear = 2015
	lastYear  = 2025
	period    = "2015:2025"
)

// product is one product of the fake store.
type product struct {
	id, title, description string
	kind                   reportstore.ProductKind
	indicators             []string
	economies              int
	price                  *big.Int // catalog price, in atomic USDC units; bespoke products are priced per request
	size                   int64    // > 0: a large report whose CSV has exactly this many bytes
}

// indicatorCodes are the indicator codes of the 44 reports of the API description (the codes
// the real catalog uses), by report id.
var indicatorCodes = map[string][]string{
	"macro-gdp":                {"NY.GDP.MKTP.CD"},
	"macro-gdp-per-capita":     {"NY.GDP.PCAP.CD"},
	"macro-gdp-ppp":            {"NY.GDP.MKTP.PP.CD"},
	"macro-gdp-growth":         {"NY.GDP.MKTP.KD.ZG"},
	"macro-inflation":          {"FP.CPI.TOTL.ZG"},
	"macro-gdp-deflator":       {"NY.GDP.DEFL.KD.ZG"},
	"macro-fx":                 {"PA.NUS.FCRF"},
	"macro-trade":              {"NE.EXP.GNFS.CD"},
	"macro-imports":            {"NE.IMP.GNFS.CD"},
	"macro-trade-openness":     {"NE.TRD.GNFS.ZS", "TG.VAL.TOTL.GD.ZS"},
	"macro-current-account":    {"BN.CAB.XOKA.CD"},
	"macro-remittances":        {"BX.TRF.PWKR.CD.DT"},
	"macro-fdi":                {"BX.KLT.DINV.CD.WD"},
	"macro-debt":               {"DT.DOD.DECT.CD"},
	"macro-credit":             {"FS.AST.PRVT.GD.ZS"},
	"macro-market-cap":         {"CM.MKT.LCAP.CD"},
	"macro-population":         {"SP.POP.TOTL"},
	"macro-population-growth":  {"SP.POP.GROW", "SP.URB.TOTL.IN.ZS"},
	"macro-life-expectancy":    {"SP.DYN.LE00.IN", "SH.DYN.MORT"},
	"macro-unemployment":       {"SL.UEM.TOTL.ZS"},
	"macro-labor-force":        {"SL.TLF.CACT.ZS", "SP.DYN.TFRT.IN"},
	"macro-gini":               {"SI.POV.GINI"},
	"macro-economic-structure": {"NV.AGR.TOTL.ZS", "NV.IND.TOTL.ZS", "NV.SRV.TOTL.ZS"},
	"macro-fiscal":             {"GC.TAX.TOTL.GD.ZS", "GC.DOD.TOTL.GD.ZS", "SE.XPD.TOTL.GD.ZS"},
	"macro-rnd":                {"GB.XPD.RSDV.GD.ZS"},
	"macro-patents":            {"IP.PAT.RESD"},
	"macro-energy":             {"EG.USE.PCAP.KG.OE", "EG.FEC.RNEW.ZS"},
	"macro-co2":                {"EN.GHG.CO2.PC.CE.AR5"},
	"macro-air-quality":        {"EN.ATM.PM25.MC.M3", "ER.H2O.FWTL.ZS"},
	"macro-food":               {"AG.PRD.FOOD.XD"},
	"macro-health":             {"SH.XPD.CHEX.GD.ZS"},
	"macro-military":           {"MS.MIL.XPND.GD.ZS"},
	"macro-digital":            {"IT.NET.USER.ZS", "IT.CEL.SETS.P2"},
	"macro-real-gdp":           {"NY.GDP.MKTP.KD"},
	"macro-gni-per-capita":     {"NY.GNP.PCAP.CD"},
	"macro-tech-exports":       {"TX.VAL.TECH.MF.ZS"},
	"macro-scientific-output":  {"IP.JRN.ARTC.SC"},
	"macro-tertiary-education": {"SE.TER.ENRR"},
	"macro-broadband":          {"IT.NET.BBND.P2"},
	"macro-internet-security":  {"IT.NET.SECR.P6"},
	"macro-renewable-power":    {"EG.ELC.RNEW.ZS"},
	"macro-fossil-share":       {"EG.USE.COMM.FO.ZS"},
	"macro-electricity-access": {"EG.ELC.ACCS.ZS"},
	"macro-tariffs":            {"TM.TAX.MRCH.WM.AR.ZS"},
}

// extraReports are catalog reports beyond the 44 of the API description, so that the fake's
// catalog has the size of the real one: id, title and indicator codes.
var extraReports = []struct {
	id, title  string
	indicators []string
}{
	{"macro-tourism", "International tourism arrivals", []string{"ST.INT.ARVL"}},
	{"macro-debt-interest", "Interest payments on external debt", []string{"DT.INT.DECT.CD"}},
	{"macro-population-aging", "Population ages 65 and above, % of total", []string{"SP.POP.65UP.TO.ZS"}},
	{"macro-poverty", "Poverty headcount ratio at $2.15 a day", []string{"SI.POV.DDAY"}},
	{"macro-gender-parliament", "Seats held by women in national parliaments", []string{"SG.GEN.PARL.ZS"}},
	{"macro-forest", "Forest area, % of land area", []string{"AG.LND.FRST.ZS"}},
	{"macro-undernourishment", "Prevalence of undernourishment", []string{"SN.ITK.DEFC.ZS"}},
	{"macro-hospital-beds", "Hospital beds per 1,000 people", []string{"SH.MED.BEDS.ZS"}},
	{"macro-military-spend", "Military expenditure, current US$", []string{"MS.MIL.XPND.CD"}},
	{"macro-real-gdp-per-capita", "GDP per capita, constant 2015 US$", []string{"NY.GDP.PCAP.KD"}},
	{"macro-ict-exports", "ICT service exports, % of service exports", []string{"BX.GSR.CCIS.ZS"}},
	{"macro-urban-growth", "Urban population growth, annual %", []string{"SP.URB.GROW"}},
	{"macro-life-expectancy-sex", "Life expectancy at birth by sex", []string{"SP.DYN.LE00.FE.IN", "SP.DYN.LE00.MA.IN"}},
	{"macro-net-lending", "Net lending (+) / net borrowing (-), % of GDP", []string{"GC.NLD.TOTL.GD.ZS"}},
	{"macro-literacy", "Adult literacy rate", []string{"SE.ADT.LITR.ZS"}},
	{"macro-patents-nonresident", "Non-resident patent applications", []string{"IP.PAT.NRES"}},
	{"macro-energy-imports", "Net energy imports, % of energy use", []string{"EG.IMP.CONS.ZS"}},
	{"macro-agri-land", "Agricultural land, % of land area", []string{"AG.LND.AGRI.ZS"}},
	{"macro-cereal-yield", "Cereal yield, kg per hectare", []string{"AG.YLD.CREL.KG"}},
	{"macro-measles-immunization", "Measles immunization, % of children 12-23 months", []string{"SH.IMM.MEAS"}},
	{"macro-sanitation", "Safely managed sanitation services, % of population", []string{"SH.STA.SMSS.ZS"}},
	{"theme-growth-quality", "Theme: growth quality", []string{"NY.GDP.MKTP.KD.ZG", "NY.GDP.PCAP.KD", "SL.UEM.TOTL.ZS"}},
	{"theme-energy-transition", "Theme: energy transition", []string{"EG.FEC.RNEW.ZS", "EG.ELC.RNEW.ZS", "EG.USE.COMM.FO.ZS"}},
	{"theme-tech-capability", "Theme: technology capability", []string{"GB.XPD.RSDV.GD.ZS", "TX.VAL.TECH.MF.ZS", "IT.NET.BBND.P2"}},
	{"theme-fiscal-space", "Theme: fiscal space", []string{"GC.TAX.TOTL.GD.ZS", "GC.DOD.TOTL.GD.ZS"}},
	{"theme-demographic-shift", "Theme: demographic shift", []string{"SP.POP.GROW", "SP.POP.65UP.TO.ZS", "SP.DYN.TFRT.IN"}},
	{"theme-trade-exposure", "Theme: trade exposure", []string{"NE.TRD.GNFS.ZS", "NE.EXP.GNFS.CD", "NE.IMP.GNFS.CD"}},
	{"theme-human-capital", "Theme: human capital", []string{"SE.TER.ENRR", "SP.DYN.LE00.IN", "SE.XPD.TOTL.GD.ZS"}},
	{"theme-inclusion-poverty", "Theme: inclusion and poverty", []string{"SI.POV.GINI", "SI.POV.DDAY"}},
	{"region-apac", "Region: Asia-Pacific", []string{"NY.GDP.MKTP.CD", "NY.GDP.MKTP.KD.ZG"}},
	{"region-europe", "Region: Europe", []string{"NY.GDP.MKTP.CD", "NY.GDP.MKTP.KD.ZG"}},
	{"region-latam", "Region: Latin America", []string{"NY.GDP.MKTP.CD", "NY.GDP.MKTP.KD.ZG"}},
	{"region-em", "Region: emerging markets", []string{"NY.GDP.MKTP.CD", "NY.GDP.MKTP.KD.ZG"}},
	{"region-na", "Region: North America", []string{"NY.GDP.MKTP.CD", "NY.GDP.MKTP.KD.ZG"}},
}

// Prices of the fake's products that the API description does not state, in atomic USDC
// units.
var (
	tariffsPrice = usdc.Cents(25)
	themePrice   = usdc.Cents(31)
	regionPrice  = usdc.Cents(20)
	otherPrice   = usdc.Cents(10)
	// customBase, customStep and customMax price a bespoke report: the base, plus the step
	// for each indicator after the first, at most the max.
	customBase  = usdc.Cents(20)
	customStep  = usdc.Cents(5)
	customMax   = usdc.Cents(95)
	bundlePrice = usdc.Cents(95)
)

// Ids of the bespoke and bundle products; they are fetched at /report/custom and
// /report/bundle.
const (
	CustomID = "custom"
	BundleID = "bundle"
)

// catalogProducts returns the fake's 80 products: the 44 reports of the API description, 34
// more catalog reports, the bespoke product and the bundle.
func catalogProducts() []*product {
	var out []*product
	for _, k := range reportstore.KnownReports() {
		p := &product{
			id:          k.ID,
			title:       k.Measures,
			description: k.Measures + ". Synthetic data for testing.",
			kind:        reportstore.KindCatalog,
			indicators:  indicatorCodes[k.ID],
			economies:   len(economies),
			price:       tariffsPrice,
		}
		if k.Price != nil {
			p.price = k.Price
		}
		if k.Economies != nil {
			p.economies = *k.Economies
		}
		out = append(out, p)
	}
	for _, e := range extraReports {
		p := &product{
			id:          e.id,
			title:       e.title,
			description: e.title + ". Synthetic data for testing.",
			kind:        reportstore.KindCatalog,
			indicators:  e.indicators,
			economies:   len(economies),
			price:       otherPrice,
		}
		switch e.id[:5] {
		case "theme":
			p.price = themePrice
		case "regio":
			p.price = regionPrice
		}
		out = append(out, p)
	}
	out = append(out,
		&product{
			id:          CustomID,
			title:       "Custom report",
			description: "Any indicators of the catalog for any covered economies: /report/custom?indicators=<codes>&countries=<codes>.",
			kind:        reportstore.KindBespoke,
			economies:   len(economies),
			price:       customBase,
		},
		&product{
			id:          BundleID,
			title:       "Everything bundle",
			description: "Every catalog report in one fetch.",
			kind:        reportstore.KindBundle,
			economies:   len(economies),
			price:       bundlePrice,
		},
	)
	return out
}
