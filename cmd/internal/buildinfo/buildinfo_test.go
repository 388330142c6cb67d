package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestRead(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "00cbc19a1b2c3d4e5f60718293a4b5c6d7e8f901"},
		{Key: "vcs.time", Value: "2026-11-30T07:44:36Z"}, {Key: "vcs.modified", Value: "true"}}
	cases := []struct {
		name string
		set  string
		bi   *debug.BuildInfo
		want string
	}{
		{"no build info", "", nil, "dev"},
		{"set at build time", "v1.2.3", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.9.0"}}, "v1.2.3 (go1.26.8)"},
		{"go install module@version", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.9.0"}}, "v0.9.0 (go1.26.8)"},
		{"a checkout", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs},
			"dev (commit 00cbc19a1b2c, 2026-11-30T07:44:36Z, modified, go1.26.8)"},
		{"go build stamps a pseudo-version", "", &debug.BuildInfo{GoVersion: "go1.26.8",
			Main: debug.Module{Version: "v0.0.0-20261130074436-00cbc19a1b2c+dirty"}, Settings: vcs[:3]},
			"v0.0.0-20261130074436-00cbc19a1b2c+dirty (commit 00cbc19a1b2c, 2026-11-30T07:44:36Z, go1.26.8)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Read(tc.set, tc.bi).String(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	// snapctl version -o json holds the whole revision.
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs}
	want := Info{Version: "dev", GoVersion: "go1.26.8", Commit: "00cbc19a1b2c3d4e5f60718293a4b5c6d7e8f901", CommitTime: "2026-11-30T07:44:36Z", Modified: true}
	if got := Read("", bi); got != want {
		t.Errorf("Read = %+v, want %+v", got, want)
	}
}
