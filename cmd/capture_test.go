package cmd

import (
	"errors"
	"testing"

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
