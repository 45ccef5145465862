package hosting

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSameContentComparesSizeAndHashes(t *testing.T) {
	t.Parallel()
	data := []byte("hello\n")
	size := func(n int64) *int64 { return &n }
	for _, tc := range []struct {
		name  string
		entry FileEntry
		same  bool
	}{
		{"git blob sha-1", FileEntry{SHA: "ce013625030ba8dba906f756967f9e9ca394464a"}, true},
		{"git blob sha-1 in capitals", FileEntry{SHA: "CE013625030BA8DBA906F756967F9E9CA394464A", Size: size(6)}, true},
		{"plain sha-1", FileEntry{SHA: "f572d396fae9206628714fb2ce00f72e94f2258f"}, true},
		{"sha-256", FileEntry{SHA256: "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"}, true},
		{"sha-256 wins over a wrong sha", FileEntry{SHA: "0000000000000000000000000000000000000000", SHA256: "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"}, true},
		{"other sha-1", FileEntry{SHA: "ce013625030ba8dba906f756967f9e9ca394464b"}, false},
		{"other sha-256", FileEntry{SHA256: "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be04"}, false},
		{"size differs", FileEntry{SHA: "ce013625030ba8dba906f756967f9e9ca394464a", Size: size(7)}, false},
		{"size alone proves nothing", FileEntry{Size: size(6)}, false},
		{"no hash", FileEntry{}, false},
	} {
		assert.Equal(t, tc.same, sameContent(tc.entry, data), tc.name)
	}
}

func TestFileEntryHashByLength(t *testing.T) {
	t.Parallel()
	var e FileEntry
	assert.NoError(t, e.UnmarshalJSON([]byte(`{"path":"a","hash":"5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"}`)))
	assert.Equal(t, "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03", e.SHA256)
	assert.Empty(t, e.SHA)
	assert.NoError(t, e.UnmarshalJSON([]byte(`{"path":"a","sha":"abc"}`)))
	assert.Empty(t, e.SHA, "a short sha is no hash the client can compare")
	assert.NoError(t, e.UnmarshalJSON([]byte(`{"name":"a","type":"dir"}`)))
	assert.True(t, e.IsDir())
}

func TestUploadErrorNamesTheFirstTwentyFilesAndUnwrapsEach(t *testing.T) {
	t.Parallel()
	cause := errors.New("boom")
	e := &UploadError{Repo: "site"}
	for i := range 23 {
		e.Files = append(e.Files, FileError{Path: fmt.Sprintf("f%02d.css", i), Op: "upload", Err: cause})
	}
	msg := e.Error()
	assert.Contains(t, msg, `hosting: deploying repository "site": 23 file(s) failed, nothing committed; upload f00.css: boom`)
	assert.Contains(t, msg, "upload f19.css: boom; and 3 more")
	assert.NotContains(t, msg, "f20.css")
	assert.ErrorIs(t, e, cause)
	assert.Len(t, e.Unwrap(), 23)
	assert.Equal(t, "f22.css", e.Paths()[22])
}
