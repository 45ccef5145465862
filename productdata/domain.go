package productdata

import (
	"maps"
	"slices"
	"strconv"
)

// Domain is a site code: the marketplace and country a request is about, sent as the domain
// parameter of every request. Only the codes below exist; any other is refused with a
// *sdk.ValidationError before a request is sent.
type Domain int

// NoDomain is the zero Domain, for the account endpoints (EndpointCoinQuery,
// EndpointCoinStream, EndpointRequestStreamMonth), which belong to no site and are sent
// without a domain.
const NoDomain Domain = 0

// Amazon sites (the API description's "large retail marketplace", 1 to 14).
const (
	AmazonUS Domain = 1
	AmazonUK Domain = 2
	AmazonDE Domain = 3
	AmazonFR Domain = 4
	AmazonIN Domain = 5
	AmazonCA Domain = 6
	AmazonJP Domain = 7
	AmazonES Domain = 8
	AmazonIT Domain = 9
	AmazonMX Domain = 10
	AmazonAE Domain = 11
	AmazonAU Domain = 12
	AmazonBR Domain = 13
	AmazonSA Domain = 14
)

// WalmartUS is Walmart's only site (the "big-box retailer marketplace", 21).
const WalmartUS Domain = 21

// Shopee sites (the "Southeast Asian marketplace", 201 to 208).
const (
	ShopeeVN Domain = 201
	ShopeeID Domain = 202
	ShopeeSG Domain = 203
	ShopeeTH Domain = 204
	ShopeeMY Domain = 205
	ShopeeTW Domain = 206
	ShopeePH Domain = 207
	ShopeeBR Domain = 208
)

// TikTok Shop sites (the "short-video shopping platform", 301 to 312; 302, 308, 310 and 311
// are not used).
const (
	TikTokUS Domain = 301
	TikTokMY Domain = 303
	TikTokPH Domain = 304
	TikTokVN Domain = 305
	TikTokTH Domain = 306
	TikTokID Domain = 307
	TikTokGB Domain = 309
	TikTokJP Domain = 312
)

// Alibaba1688 is the 1688 wholesale marketplace (601).
const Alibaba1688 Domain = 601

// Temu sites (the "low-price cross-border marketplace", 701 and 705).
const (
	TemuUS Domain = 701
	TemuEU Domain = 705
)

// Platform names the marketplace a Domain belongs to.
type Platform string

// The platforms of the site codes.
const (
	PlatformAmazon  Platform = "Amazon"
	PlatformWalmart Platform = "Walmart"
	PlatformShopee  Platform = "Shopee"
	PlatformTikTok  Platform = "TikTok"
	Platform1688    Platform = "1688"
	PlatformTemu    Platform = "Temu"
)

// site is what the package knows of a site code.
type site struct {
	platform Platform
	country  string
}

// sites holds every site code of the service.
var sites = map[Domain]site{
	AmazonUS: {PlatformAmazon, "US"}, AmazonUK: {PlatformAmazon, "UK"}, AmazonDE: {PlatformAmazon, "DE"},
	AmazonFR: {PlatformAmazon, "FR"}, AmazonIN: {PlatformAmazon, "IN"}, AmazonCA: {PlatformAmazon, "CA"},
	AmazonJP: {PlatformAmazon, "JP"}, AmazonES: {PlatformAmazon, "ES"}, AmazonIT: {PlatformAmazon, "IT"},
	AmazonMX: {PlatformAmazon, "MX"}, AmazonAE: {PlatformAmazon, "AE"}, AmazonAU: {PlatformAmazon, "AU"},
	AmazonBR: {PlatformAmazon, "BR"}, AmazonSA: {PlatformAmazon, "SA"},
	WalmartUS: {PlatformWalmart, "US"},
	ShopeeVN:  {PlatformShopee, "VN"}, ShopeeID: {PlatformShopee, "ID"}, ShopeeSG: {PlatformShopee, "SG"},
	ShopeeTH: {PlatformShopee, "TH"}, ShopeeMY: {PlatformShopee, "MY"}, ShopeeTW: {PlatformShopee, "TW"},
	ShopeePH: {PlatformShopee, "PH"}, ShopeeBR: {PlatformShopee, "BR"},
	TikTokUS: {PlatformTikTok, "US"}, TikTokMY: {PlatformTikTok, "MY"}, TikTokPH: {PlatformTikTok, "PH"},
	TikTokVN: {PlatformTikTok, "VN"}, TikTokTH: {PlatformTikTok, "TH"}, TikTokID: {PlatformTikTok, "ID"},
	TikTokGB: {PlatformTikTok, "GB"}, TikTokJP: {PlatformTikTok, "JP"},
	Alibaba1688: {Platform1688, "CN"},
	TemuUS:      {PlatformTemu, "US"}, TemuEU: {PlatformTemu, "EU"},
}

// Domains returns every site code, in increasing order.
func Domains() []Domain {
	return slices.Sorted(maps.Keys(sites))
}

// Valid reports whether d is one of the service's site codes.
func (d Domain) Valid() bool {
	_, ok := sites[d]
	return ok
}

// Platform returns the marketplace of d, or "" for a code the service does not have.
func (d Domain) Platform() Platform { return sites[d].platform }

// String names the site, such as "Amazon US (1)"; an unknown code is "Domain(42)".
func (d Domain) String() string {
	s, ok := sites[d]
	if !ok {
		return "Domain(" + strconv.Itoa(int(d)) + ")"
	}
	return string(s.platform) + " " + s.country + " (" + strconv.Itoa(int(d)) + ")"
}

// checkDomain refuses a code the service does not have.
func checkDomain(d Domain) error {
	if !d.Valid() {
		return invalid("domain", d.String()+" is not a site code (see Domains)")
	}
	return nil
}

// checkAmazon refuses any domain but an Amazon site, for the typed methods that decode
// Amazon's documented objects.
func checkAmazon(d Domain, method string) error {
	if err := checkDomain(d); err != nil {
		return err
	}
	if d.Platform() != PlatformAmazon {
		return invalid("domain", method+" reads Amazon's product objects; "+d.String()+" is a "+string(d.Platform())+
			" site, whose fields differ: use Call with a type of your own")
	}
	return nil
}
