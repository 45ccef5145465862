package sdk_test

import (
	"fmt"

	"github.com/agentapis/sdk"
)

// A Secret handed back by a client prints only a mask, whatever the verb; Reveal is the one
// way to read the value, to store it.
func ExampleSecret() {
	key := sdk.NewSecret("sk-0123456789abcdef0123456789abcdef")
	fmt.Println(key)
	fmt.Printf("%+v %q\n", struct{ Key sdk.Secret }{key}, key)
	fmt.Println(len(key.Reveal()))
	// Output:
	// sk-…cdef
	// {Key:sk-…cdef} "sk-…cdef"
	// 35
}
