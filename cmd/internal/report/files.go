package report

import (
	"encoding/hex"

	"github.com/agentskit/snapctl/replay"
)

// FilesOf are the captures of the page's header, as the reader hashed
// them while reading them (replay.Reader.HashStored): no capture is read
// a second time for its hash. The standard input is named so.
func FilesOf(stored []replay.StoredFile) []File {
	out := make([]File, len(stored))
	for i, s := range stored {
		out[i] = File{Name: s.Name, Size: s.Size}
		if s.Name == replay.StdinName {
			out[i].Name = "standard input"
		}
		if s.Sum != nil {
			out[i].SHA256 = hex.EncodeToString(s.Sum)
		}
	}
	return out
}
