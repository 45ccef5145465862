// Command gentypes writes a service package's copy of the HTTP core's public types (APIError,
// ValidationError, DecodeError, RequestError, and where the service needs them RateLimitError,
// RateLimit and Response), so that go doc shows each type with its fields and methods in the
// package that returns it, while one template here keeps them all alike. Each type has the
// same fields as the core's, so the package converts the core's values without copying them.
//
// Run it through go generate from the package's directory:
//
//	//go:generate go run github.com/agentapis/sdk/internal/gentypes -service chartdiff -types APIError,RateLimitError,Response -codes -ratelimit-sentinel ErrRateLimitExceeded
//
// ValidationError, DecodeError and RequestError are always written; -types adds the others
// (APIError, RateLimitError, Response, RetryPolicy).
// With -codes, APIError.Is matches the package's sentinels through its codeSentinels map. The
// output goes to types_gen.go in the current directory.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

// outputFile is the name of the generated file in the package directory.
const outputFile = "types_gen.go"

// config is what one package asks for.
type config struct {
	// Package is the Go package name.
	Package string
	// Service is the service's name as errors spell it.
	Service string
	// APIError, RateLimitError, Response and RetryPolicy say which optional types to write.
	APIError, RateLimitError, Response, RetryPolicy bool
	// Codes makes APIError.Is match the package's codeSentinels.
	Codes bool
	// RateLimitSentinel, when set, is matched by every RateLimitError.
	RateLimitSentinel string
}

// parseArgs reads the command line of one package.
func parseArgs(pkg string, args []string) (config, error) {
	fs := flag.NewFlagSet("gentypes", flag.ContinueOnError)
	service := fs.String("service", "", "the service's name")
	types := fs.String("types", "", "optional types: APIError, RateLimitError, Response, RetryPolicy")
	codes := fs.Bool("codes", false, "APIError.Is matches codeSentinels")
	sentinel := fs.String("ratelimit-sentinel", "", "the sentinel every RateLimitError matches")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	cfg := config{Package: pkg, Service: *service, Codes: *codes, RateLimitSentinel: *sentinel}
	for _, t := range strings.Split(*types, ",") {
		switch strings.TrimSpace(t) {
		case "":
		case "APIError":
			cfg.APIError = true
		case "RateLimitError":
			cfg.RateLimitError, cfg.APIError = true, true
		case "Response":
			cfg.Response = true
		case "RetryPolicy":
			cfg.RetryPolicy = true
		default:
			return config{}, fmt.Errorf("unknown type %q", t)
		}
	}
	switch {
	case cfg.Package == "" || cfg.Service == "":
		return config{}, fmt.Errorf("need a package (GOPACKAGE) and -service")
	case cfg.Codes && !cfg.APIError:
		return config{}, fmt.Errorf("-codes needs APIError")
	case cfg.RateLimitSentinel != "" && !cfg.RateLimitError:
		return config{}, fmt.Errorf("-ratelimit-sentinel needs RateLimitError")
	}
	return cfg, nil
}

func main() {
	cfg, err := parseArgs(os.Getenv("GOPACKAGE"), os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "gentypes:", err)
		os.Exit(2)
	}
	src, err := render(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gentypes:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(outputFile, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gentypes:", err)
		os.Exit(1)
	}
}
