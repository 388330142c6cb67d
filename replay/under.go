package replay

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// CapturesUnder turns FILE arguments into captures, each to be read on
// its own (the CLI's --each): a directory stands for every regular file
// under it, recursively, in lexical order, a symlink to one included;
// anything else is itself. A directory under it that cannot be read is a
// capture too, in its place, with its error in unreadable: it fails
// alone, and the others are still read. So is a directory with no file
// under it, and anything under it that is not read (a fifo, a socket, a
// device, a symlink to a directory or to nothing), so that nothing under
// a directory is passed over in silence.
func CapturesUnder(args []string) (files []string, unreadable map[string]error) {
	fail := func(path string, err error) {
		if unreadable == nil {
			unreadable = map[string]error{}
		}
		files = append(files, path)
		unreadable[path] = &InputError{Name: path, Err: err}
	}
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
				fail(path, err)
			case d.Type().IsRegular():
				files = append(files, path)
			case !d.IsDir():
				if why := notRead(path, d.Type()); why != "" {
					fail(path, errors.New(why))
				} else {
					files = append(files, path)
				}
			}
			return nil // go on with the rest
		})
		if len(files) == before {
			// Named, and nothing to read: said in its place, not
			// passed over in silence.
			fail(a, errors.New("is a directory with no file under it"))
		}
	}
	return files, unreadable
}

// notRead says why an entry of a directory that is not a regular file is
// not read under --each, "" for a symlink to a regular file, which is.
func notRead(path string, mode fs.FileMode) string {
	const name = " (name it to read it)"
	link := ""
	if mode&fs.ModeSymlink != 0 {
		fi, err := os.Stat(path)
		var pe *fs.PathError
		switch {
		case errors.As(err, &pe):
			return "is a symlink to nothing readable: " + pe.Err.Error()
		case err != nil:
			return "is a symlink to nothing readable: " + err.Error()
		case fi.Mode().IsRegular():
			return ""
		case fi.IsDir():
			return "is a symlink to a directory, which --each does not follow" + name
		}
		mode, link = fi.Mode(), "a symlink to "
	}
	what := "a special file"
	switch {
	case mode&fs.ModeNamedPipe != 0:
		what = "a fifo"
	case mode&fs.ModeSocket != 0:
		what = "a socket"
	case mode&fs.ModeDevice != 0:
		what = "a device"
	}
	return "is " + link + what + ", and --each reads only the regular files under a directory" + name
}
