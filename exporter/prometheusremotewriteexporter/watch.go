package prometheusremotewriteexporter

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/extension/extensionmiddleware"
	"go.uber.org/zap"
)

// unreachable is logged when a write gets no answer: refused, reset, unresolvable, or not
// answered within the client's timeout. Contrib's exporter retries those without a word.
const unreachable = "Remote write endpoint does not answer"

// answersAgain is logged at the first accepted write after failed ones.
const answersAgain = "Remote write endpoint accepts writes again"

// watchID names the watch among the host's extensions; no configuration can name it, as
// component types are lower case.
var watchID = component.MustNewID("modelplane_remote_write_watch")

// watch sees every write of one exporter, as an HTTP client middleware, and logs what its
// retries leave unsaid: a write without an answer, and the end of a run of failed ones.
type watch struct {
	logger *zap.Logger

	mu     sync.Mutex
	failed int       // writes that failed since the last accepted one
	since  time.Time // when the first of them failed
}

var (
	_ extensionmiddleware.HTTPClient = (*watch)(nil)
	_ component.Component            = (*watch)(nil)
)

func (*watch) Start(context.Context, component.Host) error { return nil }
func (*watch) Shutdown(context.Context) error              { return nil }

func (w *watch) GetHTTPRoundTripper(context.Context) (extensionmiddleware.WrapHTTPRoundTripperFunc, error) {
	return func(_ context.Context, next http.RoundTripper) (http.RoundTripper, error) {
		return watchedTransport{next: next, watch: w}, nil
	}, nil
}

type watchedTransport struct {
	next  http.RoundTripper
	watch *watch
}

func (t watchedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	t.watch.saw(req, resp, err)
	return resp, err
}

// saw takes the outcome of one write. A write cancelled by the collector (a shutdown) is not
// the endpoint's doing and says nothing of it; one past its deadline (the client's timeout,
// or what was left of the batch's) got no answer in time.
func (w *watch) saw(req *http.Request, resp *http.Response, err error) {
	ctxErr := req.Context().Err()
	if errors.Is(ctxErr, context.Canceled) {
		return
	}
	endpoint := req.URL.Redacted()
	switch {
	case err != nil:
		if pastDeadline(req) {
			err = fmt.Errorf("no answer before the write's deadline (the client's timeout, or the end of the batch's): %w", err)
		}
		w.fail()
		w.logger.Warn(unreachable, zap.String("endpoint", endpoint), zap.Error(err))
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
		// Contrib logs these itself, with the status and the endpoint's words.
		w.fail()
	case resp.StatusCode < 300:
		w.mu.Lock()
		failed, since := w.failed, w.since
		w.failed = 0
		w.mu.Unlock()
		if failed > 0 {
			w.logger.Info(answersAgain, zap.String("endpoint", endpoint), zap.Int("failed_writes", failed),
				zap.String("after", now().Sub(since).Round(time.Second).String()))
		}
	}
}

// pastDeadline tells whether req's deadline has come. Its context's error is not enough: the
// HTTP client's own timer cancels the write a moment before the context notices.
func pastDeadline(req *http.Request) bool {
	deadline, ok := req.Context().Deadline()
	return ok && !time.Now().Before(deadline)
}

func (w *watch) fail() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.failed == 0 {
		w.since = now()
	}
	w.failed++
}
