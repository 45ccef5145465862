package x402

import (
	"fmt"
	"math/big"
	"strings"
)

// USDCDecimals is the number of decimals of USDC on every network this package pays on: an
// amount of 1,000,000 atomic units is one dollar.
const USDCDecimals = 6

// FormatUSDC writes an amount of USDC atomic units as dollars with their decimals, the way
// every message of the SDK shows money: "$5.13" for 5130000, "$0.000001" for 1, "$12.00" for
// 12000000; "-$0.50" for a negative amount, "(none)" for nil. At least two decimals are
// shown, and every non-zero one.
func FormatUSDC(amount *big.Int) string {
	if amount == nil {
		return "(none)"
	}
	sign := ""
	abs := new(big.Int).Set(amount)
	if abs.Sign() < 0 {
		sign, abs = "-", abs.Neg(abs)
	}
	unit := new(big.Int).Exp(big.NewInt(10), big.NewInt(USDCDecimals), nil)
	whole, frac := new(big.Int).QuoRem(abs, unit, new(big.Int))
	decimals := strings.TrimRight(fmt.Sprintf("%0*d", USDCDecimals, frac), "0")
	decimals += strings.Repeat("0", max(2-len(decimals), 0))
	return sign + "$" + whole.String() + "." + decimals
}
