// Package validatenotes carries the warnings of otelcol-modelplane's configuration checks to
// `validate`. The collector logs them when it starts; `validate` resolves and converts the
// configuration without a logger, so it sets Out to its stderr and the checks print them
// there as well, one `warning: ...` line each.
package validatenotes // import "github.com/modelplaneai/otelcol-modelplane/internal/validatenotes"

import (
	"fmt"
	"io"
)

// Out, when set, gets each warning as a line. Only `validate` sets it, before the
// configuration is read.
var Out io.Writer

// Warn writes "warning: " and the formatted message as a line to Out, if it is set.
func Warn(format string, args ...any) {
	if Out != nil {
		fmt.Fprintf(Out, "warning: "+format+"\n", args...)
	}
}
