package wire

import (
	"bytes"
	"encoding/json"
)

// ResourceInfo describes the resource a v2 challenge asks payment for.
type ResourceInfo struct {
	URL         string `json:"url"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
	// Raw is the object as the server sent it. When set, MarshalJSON writes it unchanged, so a
	// payment echoes the server's bytes; clear it after changing the fields.
	Raw json.RawMessage `json:"-"`
}

// MarshalJSON writes Raw when it is set, and the fields otherwise.
func (r ResourceInfo) MarshalJSON() ([]byte, error) {
	if len(r.Raw) > 0 {
		return r.Raw, nil
	}
	type plain ResourceInfo // the fields, without this method
	return MarshalCompact(plain(r))
}

// UnmarshalJSON decodes the fields and keeps the object's bytes in Raw.
func (r *ResourceInfo) UnmarshalJSON(b []byte) error {
	type plain ResourceInfo
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*r = ResourceInfo(p)
	r.Raw = append(json.RawMessage(nil), bytes.TrimSpace(b)...)
	return nil
}

// Clone returns a deep copy of r, or nil.
func (r *ResourceInfo) Clone() *ResourceInfo {
	if r == nil {
		return nil
	}
	c := *r
	c.Raw = append(json.RawMessage(nil), r.Raw...)
	return &c
}
