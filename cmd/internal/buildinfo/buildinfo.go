// Package buildinfo says which snapctl this is: the version set at build
// time or the module's, and what Go's build info records of the commit
// it was built from (runtime/debug.ReadBuildInfo), for --version and
// snapctl version.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Info is what snapctl knows of its own build: -o json of snapctl
// version, and the parts of --version's line.
type Info struct {
	// Version is the version set at build time, else the module version
	// (go install …@v1.2.3, or the one go build derives from the
	// checkout), else "dev".
	Version   string `json:"version"`
	GoVersion string `json:"goVersion"`
	// Commit, CommitTime and Modified are what the build info says of
	// the checkout it was built from, when it was one.
	Commit     string `json:"commit,omitempty"`
	CommitTime string `json:"commitTime,omitempty"`
	Modified   bool   `json:"modified"`
}

// Read reads the version set at build time and the build info (nil when
// there is none).
func Read(set string, bi *debug.BuildInfo) Info {
	v := Info{Version: set}
	if v.Version == "" && bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v.Version = bi.Main.Version
	}
	if v.Version == "" {
		v.Version = "dev"
	}
	if bi == nil {
		return v
	}
	v.GoVersion = bi.GoVersion
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.time":
			v.CommitTime = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// String is the version as --version and snapctl version print it: the
// version, then the commit (shortened), its time, "modified" when the
// tree had uncommitted changes, and the Go version.
func (v Info) String() string {
	var details []string
	if v.Commit != "" {
		details = append(details, "commit "+v.Commit[:min(len(v.Commit), 12)])
	}
	if v.CommitTime != "" {
		details = append(details, v.CommitTime)
	}
	if v.Modified {
		details = append(details, "modified")
	}
	if v.GoVersion != "" {
		details = append(details, v.GoVersion)
	}
	if len(details) == 0 {
		return v.Version
	}
	return v.Version + " (" + strings.Join(details, ", ") + ")"
}
