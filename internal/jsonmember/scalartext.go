package jsonmember

// ScalarText returns the text of a JSON string or number: the string's value, or the
// number's text as sent (12, 1e3, -0.5). ok is false for null, for any other value and for
// bytes that are not one JSON value, so that a caller trying several likely member names
// moves on to the next one. It reads members such as identifiers and statistics that
// services send either as strings or as numbers.
func ScalarText(raw []byte) (string, bool) {
	var t Text
	if IsNull(raw) || t.UnmarshalJSON(raw) != nil {
		return "", false
	}
	return string(t), true
}
