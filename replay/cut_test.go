package replay

import (
	"bytes"
	"compress/gzip"
	"os"
	"strings"
	"testing"
)

// TestCutShort checks Result.Cut: set on the one malformed event that
// breaks off where its capture ends, and on nothing else.
func TestCutShort(t *testing.T) {
	ev := snapshotLine("s", 1)
	whole := harDoc(harEntryJSON("https://x/a", "2026-07-11T03:00:00Z", ev+"\n", ""), harEntryJSON("https://x/b", "2026-07-11T03:00:01Z", snapshotLine("s", 2)+"\n", ""))
	sse, err := os.ReadFile("../testdata/formats/reconnect.sse")
	if err != nil {
		t.Fatal(err)
	}
	cri, err := os.ReadFile("../testdata/formats/reconnect.cri.log")
	if err != nil {
		t.Fatal(err)
	}
	docker, err := os.ReadFile("../testdata/formats/reconnect.docker.log")
	if err != nil {
		t.Fatal(err)
	}
	dockerCut := string(docker[:len(docker)-200])
	criCut := strings.Replace(string(cri), " F ", " P ", 1)
	criCut = criCut[:strings.Index(criCut, " P ")+strings.Index(criCut[strings.Index(criCut, " P "):], "\n")+1]
	for _, tc := range []struct {
		name, in string
		format   Format
		cut      int // the 1-based result that is cut, 0 for none
	}{
		{"ndjson cut in its last line", ev + "\n" + ev[:len(ev)/2], FormatNDJSON, 2},
		{"gzip too", ev + "\n" + ev[:len(ev)/2], "gzip", 2},
		{"the same line with its newline", ev + "\n" + ev[:len(ev)/2] + "\n", FormatNDJSON, 0},
		{"a whole last line without newline", ev + "\n" + ev, FormatNDJSON, 0},
		{"broken JSON before its end", ev + "\n" + `{"a":}`, FormatNDJSON, 0},
		{"text", ev + "\n" + "hello", FormatNDJSON, 0},
		{"JSON that is no event", ev + "\n" + `{"a":1}`, FormatNDJSON, 0},
		{"a cut line before the last", ev[:len(ev)/2] + "\n" + ev, FormatNDJSON, 0},
		{"cut inside true", ev + "\n" + `{"a":tr`, FormatNDJSON, 2},
		{"cut inside false", ev + "\n" + `{"a":[fals`, FormatNDJSON, 2},
		{"cut inside null", ev + "\n" + `{"a":n`, FormatNDJSON, 2},
		{"cut inside a \\u escape", ev + "\n" + `{"a":"\u00`, FormatNDJSON, 2},
		{"cut after \\u", ev + "\n" + `{"a":"\u`, FormatNDJSON, 2},
		{"cut inside a surrogate pair's second half", ev + "\n" + `{"a":"\ud83d\ude`, FormatNDJSON, 2},
		{"a literal that is wrong before the end", ev + "\n" + `{"a":tx`, FormatNDJSON, 0},
		{"an escape that is wrong before the end", ev + "\n" + `{"a":"\u0g`, FormatNDJSON, 0},
		{"har cut inside an entry", whole[:len(whole)*3/4], FormatHAR, 2},
		{"har whole", whole, FormatHAR, 0},
		{"har cut after its entries: every event is in it", whole[:strings.LastIndex(whole, "]")+1], FormatHAR, 0},
		{"har cut between entries", whole[:strings.LastIndex(whole, "}\n]")+1], FormatHAR, -1},
		{"har empty", "", FormatHAR, 0},
		// Cut where no event is: no event breaks off (the document is
		// malformed all the same).
		{"har cut before its entries", whole[:strings.Index(whole, `"entries"`)], FormatHAR, 0},
		{"har cut after its entries", whole[:strings.LastIndex(whole, "]")+1] + `, "pages": [`, FormatHAR, 0},
		{"sse cut", string(sse[:bytes.LastIndex(sse[:len(sse)-2], []byte("\n\n"))+2]) + "data: {\"a\"\n", FormatSSE, -1},
		{"sse whole", string(sse), FormatSSE, 0},
		{"cri partial never finished", criCut, FormatCRI, -1},
		// Docker's last entry cut: a cut entry, not an NDJSON line
		// amid the log (Stats.Mixed).
		{"docker cut inside its last entry", dockerCut, FormatDocker, -1},
		{"docker cut, read as found", dockerCut, FormatAuto, -1},
		{"docker whole", string(docker), FormatDocker, 0},
		{"docker last entry whole but wrong, no newline", string(docker) + `{"log":"x\n","stream":"stdout"}`, FormatDocker, 0},
		{"docker last entry wrong before its end", string(docker) + `{"log":"x\n" bad`, FormatDocker, 0},
		// A cut in the last entry of a message split over several: one
		// event is cut, not two.
		{"docker split message, its last entry cut", string(docker) + `{"log":"{\"a\":","stream":"stdout","time":"2026-07-11T03:00:02Z"}` + "\n" + `{"log":"1}`, FormatDocker, -1},
		{"docker split message, its last entry cut after its stream", string(docker) + `{"log":"{\"a\":","stream":"stderr","time":"2026-07-11T03:00:02Z"}` + "\n" + `{"log":"1}\n","stream":"stderr","ti`, FormatAuto, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.in)
			name := "c"
			if tc.format == "gzip" {
				var b bytes.Buffer
				z := gzip.NewWriter(&b)
				z.Write(data)
				z.Close()
				data, name = b.Bytes(), "c.gz"
			}
			path := writeFile(t, t.TempDir(), name, data)
			rd, err := Open([]string{path}, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			if tc.format != "gzip" {
				rd.SetFormat(tc.format)
			}
			var cut []int
			n := 0
			Run(rd, Options{}, func(res *Result) error {
				n++
				if res.Cut {
					cut = append(cut, n)
					if res.Err == nil {
						t.Errorf("result %d is cut but not malformed", n)
					}
				}
				return nil
			})
			if m := rd.Stats().Mixed; len(m) > 0 {
				t.Errorf("read partly in another way: %+v", m)
			}
			want := tc.cut
			if want < 0 {
				want = n // the last
			}
			switch {
			case want == 0 && len(cut) > 0:
				t.Errorf("results %v are cut, want none", cut)
			case want > 0 && (len(cut) != 1 || cut[0] != want):
				t.Errorf("cut results %v of %d, want only %d", cut, n, want)
			}
		})
	}
}

// TestCutShortDockerEveryByte cuts a Docker json-file log at every byte
// of its last entry: each cut is one cut event, the last, and none is
// read as NDJSON amid the log.
func TestCutShortDockerEveryByte(t *testing.T) {
	docker, err := os.ReadFile("../testdata/formats/reconnect.docker.log")
	if err != nil {
		t.Fatal(err)
	}
	last := bytes.LastIndexByte(docker[:len(docker)-1], '\n') + 1
	dir := t.TempDir()
	for _, f := range []Format{FormatDocker, FormatAuto} {
		for end := last + 1; end < len(docker)-1; end++ {
			rd, err := Open([]string{writeFile(t, dir, "c", docker[:end])}, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			rd.SetFormat(f)
			n, cut := 0, 0
			Run(rd, Options{}, func(res *Result) error {
				if n++; res.Cut {
					cut++
				}
				return nil
			})
			if m := rd.Stats().Mixed; cut != 1 || len(m) > 0 {
				t.Fatalf("%s cut after %q: %d cut events of %d, mixed %+v", f, docker[max(last, end-12):end], cut, n, m)
			}
		}
	}
}
