// Package cli is the command line the example programs share: Main, which runs a program
// until it is done or interrupted; flags parsed with the flag package, and a -h that prints
// the flags and the environment variables a program reads and stops; the exit statuses (0
// done, 1 failed, 2 command line refused); the one wallet variable of each payment rail; and
// spending caps read as dollar amounts.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"os"
	"os/signal"
	"strings"
	"text/tabwriter"

	"github.com/agentapis/sdk/x402/usdc"
)

// The environment variables of the payments, the same in every example and in the tour.
const (
	// EnvEVMPrivateKey holds the hex private key of the wallet that pays over x402, in USDC
	// on Base.
	EnvEVMPrivateKey = "EVM_PRIVATE_KEY"
	// EnvSolanaPrivateKey holds the base58 private key of the wallet that pays in USDC on
	// Solana (gpuprice's key purchase).
	EnvSolanaPrivateKey = "SOLANA_PRIVATE_KEY"
	// EnvReportstorePayTo is the report store's payee, the only address its payer agrees to
	// pay.
	EnvReportstorePayTo = "REPORTSTORE_PAY_TO"
	// EnvGPUPriceTreasury is the GPU price service's treasury wallet, which a key purchase
	// pays; the SDK knows no default.
	EnvGPUPriceTreasury = "GPUPRICE_TREASURY"
)

// Exit statuses of the example programs.
const (
	// ExitOK: the program did what it says, or -h printed the usage.
	ExitOK = 0
	// ExitFailed: the program ran and failed.
	ExitFailed = 1
	// ExitRefused: the command line or the environment was refused; nothing was done.
	ExitRefused = 2
)

// Run is an example program: it runs with the command line args, the environment env and
// the output streams, until done or ctx ends, and returns its exit status. Tests call it
// directly; main hands it to Main.
type Run func(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) int

// Main runs run as the program itself, with os.Args, os.Getenv, os.Stdout and os.Stderr and
// a context an interrupt (Ctrl-C) ends, then exits with its status. Each example's main is
// one line:
//
//	func main() { cli.Main(realMain) }
func Main(run Run) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Var is an environment variable a program reads, with what it is for.
type Var struct {
	Name string
	Use  string
}

// Program is the command line of one example program.
type Program struct {
	// Flags are the program's flags, defined by the program before Parse.
	Flags *flag.FlagSet
	name  string
	about string
	vars  []Var
}

// New returns the command line of the program run as "go run ./examples/<name>", which
// -h describes with about and the environment variables vars.
func New(name, about string, vars ...Var) *Program {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &Program{Flags: fs, name: name, about: about, vars: vars}
}

// Parse parses args. When done is true the program must stop at once with status code: -h
// printed the usage to stdout (ExitOK), or the command line was refused with its reason on
// stderr (ExitRefused).
func (p *Program) Parse(args []string, stdout, stderr io.Writer) (code int, done bool) {
	err := p.Flags.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		p.usage(stdout)
		return ExitOK, true
	case err != nil:
		return p.Refuse(stderr, err), true
	case p.Flags.NArg() > 0:
		return p.Refuse(stderr, fmt.Errorf("unexpected argument %q: every setting is a flag", p.Flags.Arg(0))), true
	}
	return ExitOK, false
}

// Refuse writes why the command line or the environment is refused, and returns
// ExitRefused.
func (p *Program) Refuse(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "%s: %v\nRun go run ./examples/%s -h for its flags and environment variables.\n", p.name, err, p.name)
	return ExitRefused
}

// Exit returns the status of a run that ended with err: ExitOK when err is nil, and
// otherwise ExitFailed, after writing err to stderr with its USDC amounts in dollars (see
// Message).
func (p *Program) Exit(stderr io.Writer, err error) int {
	if err == nil {
		return ExitOK
	}
	fmt.Fprintf(stderr, "%s: %s\n", p.name, err)
	return ExitFailed
}

// usage writes what the program does, its flags and the environment variables it reads.
func (p *Program) usage(w io.Writer) {
	fmt.Fprintf(w, "Usage: go run ./examples/%s [flags]\n\n%s\n\nFlags:\n", p.name, strings.TrimSpace(p.about))
	p.Flags.SetOutput(w)
	p.Flags.PrintDefaults()
	p.Flags.SetOutput(io.Discard)
	if len(p.vars) == 0 {
		fmt.Fprintln(w, "\nEnvironment: none read.")
		return
	}
	fmt.Fprintln(w, "\nEnvironment:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, v := range p.vars {
		fmt.Fprintf(tw, "  %s\t%s\n", v.Name, v.Use)
	}
	tw.Flush()
}

// ParseCap reads the spending cap given to the flag name: a positive dollar amount with at
// most six decimals, such as "0.50" or "$6", returned in USDC atomic units.
func ParseCap(name, text string) (*big.Int, error) {
	amount, err := usdc.Parse(text)
	if err != nil || amount.Sign() <= 0 {
		return nil, fmt.Errorf("-%s %q: the cap must be a positive dollar amount with at most 6 decimals, such as 0.50", name, text)
	}
	return amount, nil
}

// Live reports whether a service is to be called live: its URL variable urlVar is set in
// env. A URL set without every one of the credential variables creds is refused: the
// program would otherwise fall back to the fake, or call the service without a credential.
func Live(env func(string) string, urlVar string, creds ...string) (bool, error) {
	if env(urlVar) == "" {
		return false, nil
	}
	var missing []string
	for _, c := range creds {
		if env(c) == "" {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return true, fmt.Errorf("%s is set without %s: set that too to use the service, or unset %s to use the in-memory fake",
			urlVar, strings.Join(missing, " and "), urlVar)
	}
	return true, nil
}
