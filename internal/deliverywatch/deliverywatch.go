// Package deliverywatch sees every request an exporter sends, as a client middleware of its
// HTTP or gRPC client, and logs what the exporter's retries leave unsaid: a request that got
// no answer at all (where the exporter says nothing of it), and the end of a run of failed
// requests, with how many failed and for how long. Exporters get it through Exporter, which
// starts them on a host that holds it; their configuration names it as a middleware.
package deliverywatch // import "github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch"

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
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Unanswered is logged, where the watch is asked to, when a request gets no answer: refused,
// reset, unresolvable, or not answered within its deadline.
const Unanswered = "Export endpoint does not answer"

// AnswersAgain is logged at the first accepted request after failed ones.
const AnswersAgain = "Export endpoint accepts data again"

// ID names a watch among the host's extensions and in a client's middlewares; no
// configuration can name it, as it is not a component this build has.
var ID = component.MustNewID("modelplane_delivery_watch")

// Watch watches one exporter's requests.
type Watch struct {
	logger *zap.Logger
	// logUnanswered: the exporter does not log a request without an answer itself.
	logUnanswered bool
	now           func() time.Time

	mu       sync.Mutex
	failed   int       // requests that failed since the last accepted one
	since    time.Time // when the first of them failed
	accepted time.Time // when the last accepted request was answered
}

// New returns a watch that logs to logger; with logUnanswered, it also logs each request
// without an answer (a logger that condenses repeats keeps that to a line per cause).
func New(logger *zap.Logger, logUnanswered bool, now func() time.Time) *Watch {
	return &Watch{logger: logger, logUnanswered: logUnanswered, now: now}
}

var (
	_ extensionmiddleware.HTTPClient = (*Watch)(nil)
	_ extensionmiddleware.GRPCClient = (*Watch)(nil)
	_ component.Component            = (*Watch)(nil)
)

func (*Watch) Start(context.Context, component.Host) error { return nil }
func (*Watch) Shutdown(context.Context) error              { return nil }

// GetHTTPRoundTripper wraps an HTTP client's transport.
func (w *Watch) GetHTTPRoundTripper(context.Context) (extensionmiddleware.WrapHTTPRoundTripperFunc, error) {
	return func(_ context.Context, next http.RoundTripper) (http.RoundTripper, error) {
		return transport{next: next, watch: w}, nil
	}, nil
}

// GetGRPCClientOptions adds an interceptor to a gRPC client's calls.
func (w *Watch) GetGRPCClientOptions(context.Context) ([]grpc.DialOption, error) {
	return []grpc.DialOption{grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any,
		cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption,
	) error {
		sent := w.now()
		err := invoker(ctx, method, req, reply, cc, opts...)
		w.sawCall(ctx, sent, cc.Target(), err)
		return err
	})}, nil
}

type transport struct {
	next  http.RoundTripper
	watch *Watch
}

func (t transport) RoundTrip(req *http.Request) (*http.Response, error) {
	sent := t.watch.now()
	resp, err := t.next.RoundTrip(req)
	t.watch.sawRequest(req, sent, resp, err)
	return resp, err
}

// sawRequest takes the outcome of one HTTP request. One the collector cancelled (a shutdown)
// is not the endpoint's doing and says nothing of it; one past its deadline (the client's
// timeout, or what was left of the export's) got no answer in time.
func (w *Watch) sawRequest(req *http.Request, sent time.Time, resp *http.Response, err error) {
	ctx := req.Context()
	if errors.Is(ctx.Err(), context.Canceled) {
		return
	}
	endpoint := req.URL.Redacted()
	switch {
	case err != nil:
		w.unanswered(ctx, sent, endpoint, err)
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
		// The exporter logs these itself, with the status and the endpoint's words.
		w.fail(sent)
	case resp.StatusCode < 300:
		w.accept(endpoint)
	}
}

// sawCall takes the outcome of one gRPC call, as sawRequest does an HTTP request's.
func (w *Watch) sawCall(ctx context.Context, sent time.Time, target string, err error) {
	if errors.Is(ctx.Err(), context.Canceled) {
		return
	}
	switch status.Code(err) {
	case codes.OK:
		w.accept(target)
	case codes.Unavailable, codes.DeadlineExceeded:
		w.unanswered(ctx, sent, target, err)
	case codes.ResourceExhausted, codes.Aborted, codes.Internal:
		w.fail(sent)
	}
}

func (w *Watch) unanswered(ctx context.Context, sent time.Time, endpoint string, err error) {
	if deadline, ok := ctx.Deadline(); ok && !time.Now().Before(deadline) {
		// The context's own error can lag the client's timer that cancelled the request.
		err = fmt.Errorf("no answer before the request's deadline (the client's timeout, or the end of the export's): %w", err)
	}
	if !w.fail(sent) {
		return
	}
	if w.logUnanswered {
		w.logger.Warn(Unanswered, zap.String("endpoint", endpoint), zap.Error(err))
	}
}

// accept ends a run of failed requests with an accepted one, and says so.
func (w *Watch) accept(endpoint string) {
	w.mu.Lock()
	failed, since := w.failed, w.since
	w.failed, w.accepted = 0, w.now()
	w.mu.Unlock()
	if failed > 0 {
		w.logger.Info(AnswersAgain, zap.String("endpoint", endpoint), zap.Int("failed_requests", failed),
			zap.String("after", w.now().Sub(since).Round(time.Second).String()))
	}
}

// fail counts a request sent at sent that failed, and tells whether it did: one sent before
// the last accepted request was answered (another consumer's, in flight when the endpoint
// came back) is from the run that has ended, and neither starts a new one nor is logged.
func (w *Watch) fail(sent time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if sent.Before(w.accepted) {
		return false
	}
	if w.failed == 0 {
		w.since = w.now()
	}
	w.failed++
	return true
}
