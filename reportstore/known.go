package reportstore

import (
	"math/big"

	"github.com/agentapis/sdk/x402/usdc"
)

// KnownReport is one row of the catalog table of the store's API description: a report id,
// what it measures, its price at the time the description was written, and how many
// economies it covers.
//
// It is a snapshot for documentation and offline exploration. Prices are re-quoted by the
// store on every request: Quote, Report and Catalog give the live price, and a purchase always
// pays the amount of its own 402 challenge, never a KnownReport price.
type KnownReport struct {
	// ID is the report id, the last segment of /report/<id>.
	ID string
	// Measures describes the indicator(s) of the report.
	Measures string
	// Price is the price at the time of description, in atomic USDC units (see x402/usdc);
	// nil where the description does not state it (macro-tariffs).
	Price *big.Int
	// Economies is the number of economies covered (10 or 20); nil where the description does
	// not state it (macro-tariffs).
	Economies *int
}

// knownReports is the table of the API description, in its order.
var knownReports = [...]KnownReport{
	{ID: "macro-gdp", Measures: "GDP, current US$", Price: usdc.Cents(13), Economies: intRef(20)},
	{ID: "macro-gdp-per-capita", Measures: "GDP per capita, current US$", Price: usdc.Cents(13), Economies: intRef(20)},
	{ID: "macro-gdp-ppp", Measures: "GDP at PPP, current international $", Price: usdc.Cents(13), Economies: intRef(20)},
	{ID: "macro-gdp-growth", Measures: "Real GDP growth, annual %", Price: usdc.Cents(13), Economies: intRef(20)},
	{ID: "macro-inflation", Measures: "Consumer-price inflation", Price: usdc.Cents(13), Economies: intRef(20)},
	{ID: "macro-gdp-deflator", Measures: "GDP-deflator inflation", Price: usdc.Cents(9), Economies: intRef(20)},
	{ID: "macro-fx", Measures: "Official exchange rate, local units per US$, period average", Price: usdc.Cents(13), Economies: intRef(20)},
	{ID: "macro-trade", Measures: "Exports of goods and services, current US$", Price: usdc.Cents(13), Economies: intRef(20)},
	{ID: "macro-imports", Measures: "Imports of goods and services, current US$", Price: usdc.Cents(13), Economies: intRef(20)},
	{ID: "macro-trade-openness", Measures: "Trade and merchandise trade as share of GDP", Price: usdc.Cents(13), Economies: intRef(20)},
	{ID: "macro-current-account", Measures: "Current account balance, current US$", Price: usdc.Cents(28), Economies: intRef(20)},
	{ID: "macro-remittances", Measures: "Personal remittances received, current US$", Price: usdc.Cents(9), Economies: intRef(20)},
	{ID: "macro-fdi", Measures: "FDI net inflows, balance-of-payments basis", Price: usdc.Cents(28), Economies: intRef(20)},
	{ID: "macro-debt", Measures: "Public and publicly guaranteed external debt stocks", Price: usdc.Cents(25), Economies: intRef(10)},
	{ID: "macro-credit", Measures: "Domestic credit to private sector, % of GDP", Price: usdc.Cents(13), Economies: intRef(20)},
	{ID: "macro-market-cap", Measures: "Market capitalization of listed domestic companies", Price: usdc.Cents(13), Economies: intRef(20)},
	{ID: "macro-population", Measures: "Total population", Price: usdc.Cents(9), Economies: intRef(20)},
	{ID: "macro-population-growth", Measures: "Annual population growth and urban share", Price: usdc.Cents(13), Economies: intRef(20)},
	{ID: "macro-life-expectancy", Measures: "Life expectancy at birth; under-5 mortality per 1,000 live births", Price: usdc.Cents(12), Economies: intRef(20)},
	{ID: "macro-unemployment", Measures: "Unemployment, % of labor force", Price: usdc.Cents(13), Economies: intRef(20)},
	{ID: "macro-labor-force", Measures: "Labor force participation and fertility rate", Price: usdc.Cents(13), Economies: intRef(20)},
	{ID: "macro-gini", Measures: "Gini index (0 = equality, 100 = inequality); sparser coverage", Price: usdc.Cents(25), Economies: intRef(10)},
	{ID: "macro-economic-structure", Measures: "Agriculture, industry, services value added, % of GDP", Price: usdc.Cents(28), Economies: intRef(20)},
	{ID: "macro-fiscal", Measures: "Tax revenue, central government debt, education spending, % of GDP", Price: usdc.Cents(25), Economies: intRef(10)},
	{ID: "macro-rnd", Measures: "R&D expenditure, % of GDP", Price: usdc.Cents(12), Economies: intRef(20)},
	{ID: "macro-patents", Measures: "Resident patent applications; coverage limited to the most recent available year", Price: usdc.Cents(7), Economies: intRef(20)},
	{ID: "macro-energy", Measures: "Energy use per capita (kg oil equivalent) and renewable share of final consumption", Price: usdc.Cents(12), Economies: intRef(20)},
	{ID: "macro-co2", Measures: "Territorial CO2 per capita, tonnes CO2 equivalent", Price: usdc.Cents(12), Economies: intRef(20)},
	{ID: "macro-air-quality", Measures: "Mean PM2.5 and freshwater withdrawal share", Price: usdc.Cents(11), Economies: intRef(20)},
	{ID: "macro-food", Measures: "Food production index (2014-2016 = 100)", Price: usdc.Cents(7), Economies: intRef(20)},
	{ID: "macro-health", Measures: "Current health expenditure, % of GDP", Price: usdc.Cents(8), Economies: intRef(20)},
	{ID: "macro-military", Measures: "Military expenditure, % of GDP", Price: usdc.Cents(25), Economies: intRef(20)},
	{ID: "macro-digital", Measures: "Internet users (% of population) and mobile subscriptions per 100", Price: usdc.Cents(13), Economies: intRef(20)},
	{ID: "macro-real-gdp", Measures: "GDP at constant 2015 US$", Price: usdc.Cents(13), Economies: intRef(20)},
	{ID: "macro-gni-per-capita", Measures: "GNI per capita, Atlas method, current US$", Price: usdc.Cents(13), Economies: intRef(20)},
	{ID: "macro-tech-exports", Measures: "High-technology exports, share of manufactured exports", Price: usdc.Cents(12), Economies: intRef(20)},
	{ID: "macro-scientific-output", Measures: "Scientific and technical journal articles", Price: usdc.Cents(11), Economies: intRef(20)},
	{ID: "macro-tertiary-education", Measures: "Gross tertiary enrolment ratio", Price: usdc.Cents(13), Economies: intRef(20)},
	{ID: "macro-broadband", Measures: "Fixed broadband subscriptions per 100 people", Price: usdc.Cents(12), Economies: intRef(20)},
	{ID: "macro-internet-security", Measures: "Secure Internet servers per 1 million people", Price: usdc.Cents(12), Economies: intRef(20)},
	{ID: "macro-renewable-power", Measures: "Renewable share of electricity output", Price: usdc.Cents(10), Economies: intRef(20)},
	{ID: "macro-fossil-share", Measures: "Fossil fuel share of energy use", Price: usdc.Cents(12), Economies: intRef(20)},
	{ID: "macro-electricity-access", Measures: "Population share with access to electricity", Price: usdc.Cents(8), Economies: intRef(20)},
	{ID: "macro-tariffs", Measures: "Trade-weighted mean applied tariff"},
}

// KnownReports returns the 44 reports listed in the store's API description, in its order.
// The store sells more (80 catalog reports plus bespoke and bundle products); Catalog lists
// them all with their live prices. The result is a fresh copy the caller may change.
func KnownReports() []KnownReport {
	out := make([]KnownReport, len(knownReports))
	for i, r := range knownReports {
		if r.Price != nil {
			r.Price = new(big.Int).Set(r.Price)
		}
		r.Economies = cloneInt(r.Economies)
		out[i] = r
	}
	return out
}
