package cmd

import (
	"errors"
	"testing"

	"github.com/agentskit/snapctl/cmd/internal/iostreams"
	"github.com/agentskit/snapctl/replay"
)

func TestParseSize(t *testing.T) {
	cases := []struct {
		in   string
		want int64 // 0: refused
	}{
		{"1", 1},
		{"0", 0},
		{"-1", 0},
		{"65536", 65536},
		{"512KiB", 512 << 10},
		{"64MiB", 64 << 20},
		{"64mib", 64 << 20},
		{"64 MiB", 64 << 20},
		{"1GiB", 1 << 30},
		{"1073741824", replay.MaxLineLimit},
		{"1073741825", 0},
		{"1048576KiB", 1 << 30},
		{"1048577KiB", 0},
		{"1024MiB", 1 << 30},
		{"1025MiB", 0},
		{"2GiB", 0},
		{"1GB", 1e9},
		{"2GB", 0},
		{"1kb", 1000},
		{"10b", 10},
		{"9223372036854775807", 0},
		{"9223372036854775808", 0},
		{"18014398509481984KiB", 0}, // 2^54 KiB: n*unit would wrap
		{"", 0},
		{"MiB", 0},
		{"64M", 0},
		{"1.5GiB", 0},
		{"+5", 0},
		{"0x10", 0},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseSize(tc.in)
			var fe *flagError
			switch {
			case tc.want == 0 && !errors.As(err, &fe):
				t.Fatalf("parseSize(%q) = %d, %v; want a flag error", tc.in, got, err)
			case tc.want != 0 && (err != nil || got != tc.want):
				t.Fatalf("parseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{1: "1", 1023: "1023", 1024: "1KiB", 64 << 20: "64MiB", 1 << 30: "1GiB", 1e9: "1000000000", 3 << 19: "1536KiB"} {
		if got := formatSize(n); got != want {
			t.Errorf("formatSize(%d) = %q, want %q", n, got, want)
		}
		if back, err := parseSize(formatSize(n)); err != nil || back != n {
			t.Errorf("parseSize(formatSize(%d)) = %d, %v", n, back, err)
		}
	}
}

type fakeReport struct {
	warnings []error
	err      error
	empty    bool // the input had no line
}

func (f fakeReport) Warnings() []error { return f.warnings }
func (f fakeReport) Err() error        { return f.err }
func (f fakeReport) Stats() replay.Stats {
	if f.empty {
		return replay.Stats{Files: 1}
	}
	return replay.Stats{Files: 1, Lines: 1}
}

// Damage turns a finished command into exit 2 after its output, unless
// the command failed for another reason; warnings go to standard error.
func TestFinish(t *testing.T) {
	damage := &replay.DamageError{Name: "c.gz", Format: "gzip", Offset: 10, Err: errors.New("unexpected EOF")}
	write := errors.New("writing output: broken pipe")
	shrink := &replay.ShrinkError{Name: "live\n.jsonl", Size: 10, Now: 4}
	cases := []struct {
		name     string
		report   inputReport
		err      error
		want     error // the error finish returns, by errors.Is
		status   int
		stderr   string
		noReader bool
	}{
		{name: "clean", report: fakeReport{}, status: exitOK},
		{name: "clean, matched", report: fakeReport{}, err: errMatched, want: errMatched, status: exitMatch},
		{name: "damage", report: fakeReport{err: damage}, want: damage, status: exitUsage},
		{name: "damage wins over a match", report: fakeReport{err: damage}, err: errMatched, want: damage, status: exitUsage},
		{name: "damage wins over a usage error", report: fakeReport{err: damage}, err: usageErrorf("no line 9"), want: damage, status: exitUsage},
		{name: "a write error wins over damage", report: fakeReport{err: damage}, err: write, want: write, status: exitUsage},
		{name: "warning only", report: fakeReport{warnings: []error{shrink}}, status: exitOK,
			stderr: "snapctl: warning: live\\n.jsonl shrank from 10 to 4 bytes while being read: lines may be missing\n"},
		{name: "empty: said, status unchanged", report: fakeReport{empty: true}, status: exitOK,
			stderr: "snapctl: hint: the capture is empty (0 bytes): it holds no event\n"},
		{name: "empty, matched", report: fakeReport{empty: true}, err: errMatched, want: errMatched, status: exitMatch,
			stderr: "snapctl: hint: the capture is empty (0 bytes): it holds no event\n"},
		{name: "no reader (runF)", noReader: true, err: errMatched, want: errMatched, status: exitMatch},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ios, _, errOut := iostreams.Test("")
			cf := &captureFlags{}
			if !tc.noReader {
				cf.rd = tc.report
			}
			got := cf.finish(ios, tc.err)
			if (tc.want == nil) != (got == nil) || (tc.want != nil && !errors.Is(got, tc.want)) {
				t.Fatalf("finish = %v, want %v", got, tc.want)
			}
			if s := exitStatus(got); s != tc.status {
				t.Fatalf("exit status %d, want %d", s, tc.status)
			}
			if errOut.String() != tc.stderr {
				t.Fatalf("stderr %q, want %q", errOut.String(), tc.stderr)
			}
		})
	}
}
