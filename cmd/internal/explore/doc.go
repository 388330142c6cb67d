// Package explore is the full-screen explorer of `snapctl explore`, a
// bubbletea program: the index of a capture (a few bytes a line: offset,
// envelope, verdict; lines are read again when shown), the model and its
// keys, the view (timeline, event list, detail tabs) and the what-if
// toggles that judge again the lines of the toggled line's cursor (see
// verdicts.go) and re-run the findings and the lineage without the lines
// toggled off.
//
// Run is the whole of it for the command. The words and pictures of the
// tabs are those of package render (replay's verdicts, diff's pairs,
// lineage's tree, inspect's close-up JSON), so the explorer says what the
// other commands say.
package explore
