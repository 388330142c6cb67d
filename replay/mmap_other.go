//go:build !linux

package replay

import "os"

// mapFile maps nothing here: captures are read.
func mapFile(*os.File, int64) []byte { return nil }

func unmap([]byte) {}

func dropPages([]byte) {}
