//go:build !unix

package cmd

import "testing"

// fifoCase has no fifo to offer where there are none.
func fifoCase(*testing.T, string) []completionBudgetCase { return nil }
