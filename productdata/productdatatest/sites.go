package productdatatest

// platform is a marketplace the service covers; each has its own site codes.
type platform int

// The platforms.
const (
	amazon platform = iota + 1
	walmart
	shopee
	wholesale1688
	temu
	tiktok
)

// site is one site code (domain) of the service.
type site struct {
	code     int
	platform platform
	country  string
	// host is the marketplace's web host, for the URLs in the data.
	host string
	// minorPerUSD converts a US-cent amount into the site's minor currency unit (cents,
	// pence, yen, ...), approximately; Amazon sites only.
	minorPerUSD int
}

// sites are the site codes the service accepts, exactly those of its published table.
var sites = map[int]site{
	1:   {1, amazon, "US", "www.amazon.com", 100},
	2:   {2, amazon, "GB", "www.amazon.co.uk", 79},
	3:   {3, amazon, "DE", "www.amazon.de", 92},
	4:   {4, amazon, "FR", "www.amazon.fr", 92},
	5:   {5, amazon, "IN", "www.amazon.in", 8300},
	6:   {6, amazon, "CA", "www.amazon.ca", 136},
	7:   {7, amazon, "JP", "www.amazon.co.jp", 150},
	8:   {8, amazon, "ES", "www.amazon.es", 92},
	9:   {9, amazon, "IT", "www.amazon.it", 92},
	10:  {10, amazon, "MX", "www.amazon.com.mx", 1700},
	11:  {11, amazon, "AE", "www.amazon.ae", 367},
	12:  {12, amazon, "AU", "www.amazon.com.au", 152},
	13:  {13, amazon, "BR", "www.amazon.com.br", 500},
	14:  {14, amazon, "SA", "www.amazon.sa", 375},
	21:  {21, walmart, "US", "www.walmart.com", 0},
	201: {201, shopee, "VN", "shopee.vn", 0},
	202: {202, shopee, "ID", "shopee.co.id", 0},
	203: {203, shopee, "SG", "shopee.sg", 0},
	204: {204, shopee, "TH", "shopee.co.th", 0},
	205: {205, shopee, "MY", "shopee.com.my", 0},
	206: {206, shopee, "TW", "shopee.tw", 0},
	207: {207, shopee, "PH", "shopee.ph", 0},
	208: {208, shopee, "BR", "shopee.com.br", 0},
	601: {601, wholesale1688, "CN", "www.1688.com", 0},
	701: {701, temu, "US", "www.temu.com", 0},
	705: {705, temu, "EU", "www.temu.com", 0},
	301: {301, tiktok, "US", "www.tiktok.com", 0},
	303: {303, tiktok, "MY", "www.tiktok.com", 0},
	304: {304, tiktok, "PH", "www.tiktok.com", 0},
	305: {305, tiktok, "VN", "www.tiktok.com", 0},
	306: {306, tiktok, "TH", "www.tiktok.com", 0},
	307: {307, tiktok, "ID", "www.tiktok.com", 0},
	309: {309, tiktok, "GB", "www.tiktok.com", 0},
	312: {312, tiktok, "JP", "www.tiktok.com", 0},
}

// lowercaseErrors reports whether the platform answers failures with the camelCase envelope.
func (p platform) lowercaseErrors() bool {
	return p == wholesale1688 || p == temu || p == tiktok
}

// encodesBody reports whether the platform sends whole answers as base64 of gzip.
func (p platform) encodesBody() bool { return p == shopee || p == walmart }

// hasUnsupportedCode reports whether the platform's code table has 16 (endpoint not
// supported on this site); the others answer 401 (endpoint not open).
func (p platform) hasUnsupportedCode() bool { return p == amazon || p == shopee }

// noLookback are the Amazon sites without historical category look-back.
var noLookback = map[int]bool{5: true, 11: true, 12: true, 14: true}
