package main

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// directive starts the go:generate line of a package that uses this generator.
const directive = "//go:generate go run github.com/agentapis/sdk/internal/gentypes "

// TestGeneratedFilesAreCurrent regenerates every package's types_gen.go from its go:generate
// line and compares it with the file in the repository, so a change to the template or to a
// package's flags cannot land without the regenerated file.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	found := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		args, pkg, ok := generateLine(t, path)
		if !ok {
			return nil
		}
		found++
		cfg, err := parseArgs(pkg, args)
		require.NoError(t, err, path)
		want, err := render(cfg)
		require.NoError(t, err, path)
		got, err := os.ReadFile(filepath.Join(filepath.Dir(path), outputFile))
		require.NoError(t, err, "%s asks for %s", path, outputFile)
		assert.Equal(t, string(want), string(got), "%s is stale: run go generate ./... ", filepath.Join(filepath.Dir(path), outputFile))
		return nil
	})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, found, 1)
}

// generateLine returns the generator's arguments and the package name of a file carrying the
// generator's directive.
func generateLine(t *testing.T, path string) (args []string, pkg string, ok bool) {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		if name, found := strings.CutPrefix(line, "package "); found && pkg == "" {
			pkg = strings.TrimSpace(name)
		}
		if rest, found := strings.CutPrefix(line, directive); found {
			args, ok = strings.Fields(rest), true
		}
	}
	return args, pkg, ok
}

func TestParseArgsRefusesContradictions(t *testing.T) {
	t.Parallel()
	_, err := parseArgs("p", []string{"-service", "s", "-codes"})
	assert.Error(t, err, "-codes without APIError")
	_, err = parseArgs("p", []string{"-service", "s", "-types", "Nope"})
	assert.Error(t, err)
	_, err = parseArgs("", []string{"-service", "s"})
	assert.Error(t, err)
	cfg, err := parseArgs("p", []string{"-service", "s", "-types", "RateLimitError", "-ratelimit-sentinel", "ErrX"})
	require.NoError(t, err)
	assert.True(t, cfg.APIError, "RateLimitError brings APIError")
}
