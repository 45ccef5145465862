//go:build !race

package sdk_test

// raceBuild is whether this test binary was built with the race detector.
const raceBuild = false
