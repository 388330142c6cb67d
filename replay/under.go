package replay

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// CapturesUnder turns FILE arguments into captures, each to be read on
// its own (the CLI's --each): a directory stands for every regular file
// under it, recursively, in lexical order; anything else is itself. A
// directory under it that cannot be read is a capture too, in its place,
// with its error in unreadable: it fails alone, and the others are still
// read. So is a directory with no file under it.
func CapturesUnder(args []string) (files []string, unreadable map[string]error) {
	for _, a := range args {
		fi, err := os.Stat(a)
		if a == StdinName || err != nil || !fi.IsDir() {
			files = append(files, a) // the reader reports what is wrong with it
			continue
		}
		before := len(files)
		filepath.WalkDir(a, func(path string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				if unreadable == nil {
					unreadable = map[string]error{}
				}
				files = append(files, path)
				unreadable[path] = &InputError{Name: path, Err: err}
			case d.Type().IsRegular():
				files = append(files, path)
			}
			return nil // go on with the rest
		})
		if len(files) == before {
			// Named, and nothing to read: said in its place, not
			// passed over in silence.
			if unreadable == nil {
				unreadable = map[string]error{}
			}
			files = append(files, a)
			unreadable[a] = &InputError{Name: a, Err: errors.New("is a directory with no file under it")}
		}
	}
	return files, unreadable
}
