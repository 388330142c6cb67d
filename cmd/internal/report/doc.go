// Package report builds the HTML report and the SVG pictures: a Collector
// keeps, within fixed caps, what the page shows of one run (rows of the
// sessions it keeps, their diffs, the chart's buckets), BuildPage gathers
// it with inspect's report and lineage's graphs into a Page, and WritePage
// writes the page through html/template under a Content-Security-Policy
// (CSP) that forbids script, connections and external loads.
// WriteLineageSVG draws `snapctl lineage -o svg`.
//
// Every value from a capture is made terminal-safe and escaped by
// html/template; none is marked as trusted HTML. The words a page uses for
// turns, verdicts and findings come from package render, so the page and
// the terminal say the same.
package report
