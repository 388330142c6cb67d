// Package poison lets tests check that a caller of borrowed memory
// keeps none of it: with Released set, replay overwrites the bytes of
// every line once its results are delivered (a released batch, the
// consumed part of the reader's buffer), so that a string still pointing
// into them shows as the overwritten bytes. Production code never sets
// it; replay reads it only where a batch or buffer is let go.
package poison

// Released, set by a test before a run and unset after it, asks for
// lines to be overwritten once delivered. Regular files are then read,
// not mapped.
var Released bool

// Fill overwrites b.
func Fill(b []byte) {
	for i := range b {
		b[i] = '#'
	}
}
