package jsonmember

import "fmt"

// Missing is the decoding error of a member the API description names that the answer did
// not carry (or carried as null): what names the value being read, such as "cheapest
// price", and member the member as the description spells it.
func Missing(what, member string) error {
	return fmt.Errorf("%s: field %q is missing", what, member)
}
