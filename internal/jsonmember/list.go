package jsonmember

import (
	"fmt"
	"strings"
)

// List applies the rule for a list whose name the API description does not show, so that a
// renamed list never reads as an empty one. items and found are the list and whether the
// answer carried it under one of names (see FirstTracked); count is the answer's count or
// total, nil when it gave none. A list carried with a value is returned as it is; a list
// absent or null is empty when count says 0, and an error otherwise: count says more, or
// nothing says the list is empty. what names the value being read, for the error.
func List[T any](what string, items []T, found bool, count *int, names ...string) ([]T, error) {
	switch {
	case found && items != nil:
		return items, nil
	case count != nil && *count == 0:
		return []T{}, nil
	case count != nil:
		return nil, fmt.Errorf("%s: the answer counts %d but carries no list (looked for %s)", what, *count, strings.Join(names, ", "))
	}
	return nil, fmt.Errorf("%s: no list found (looked for %s)", what, strings.Join(names, ", "))
}
