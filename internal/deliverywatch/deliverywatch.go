// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package deliverywatch sees every request an exporter sends, as a client middleware of its
// HTTP or gRPC client, and logs what the exporter's retries leave unsaid: a request that got
// no answer at all (where the exporter says nothing of it), and the end of a run of failed
// requests, with how many failed and for how long. Exporters get it through Exporter, which
// starts them on a host that holds it; their configuration names it as a middleware. Its
// Condenser condenses the lines a component repeats for the same failure (a target that is
// down, an export refused): the first is logged, the repeats counted once per period.
package deliverywatch // import "github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch"

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v5"
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

// GivesUp is logged when a stopping exporter stops retrying an endpoint that fails.
const GivesUp = "The collector is stopping and the export endpoint still fails: the exporter stops sending to it (a persistent sending queue keeps what is left, any other drops it)"

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
	answered time.Time // when the last request was answered, accepted or not
	inFlight int       // requests sent and not yet answered
	endpoint string    // the last request's, for the line that gives up

	// giveUpAfter is how long a stopping exporter waits for a failing endpoint (zero: as long
	// as the exporter would); stopBegan is when it began to stop, gaveUp that giveUpAfter has
	// passed since; abort cancels the requests in flight once the watch has given up.
	giveUpAfter time.Duration
	storage     *component.ID // the extension the exporter's sending queue is on; nil: in memory
	id          component.ID  // the exporter's, which names its queue's file
	stopBegan   time.Time
	gaveUp      bool
	dropping    bool
	giveUpTimer *time.Timer
	abortCtx    context.Context
	abort       context.CancelCauseFunc

	// condensed are the exporter's condensed lines (Options.Rules), flushed as it stops.
	condensed []*Condenser
}

// New returns a watch that logs to logger; with logUnanswered, it also logs each request
// without an answer (a logger that condenses repeats keeps that to a line per cause).
func New(logger *zap.Logger, logUnanswered bool, now func() time.Time) *Watch {
	w := &Watch{logger: logger, logUnanswered: logUnanswered, now: now}
	w.abortCtx, w.abort = context.WithCancelCause(context.Background())
	return w
}

// GiveUpWhenStopping makes the watch end a stopping exporter's wait for a failing endpoint
// after d of its shutdown: no request to it is sent, the one in flight is cancelled, and one
// that fails ends its batch's retries (ErrGaveUp). An endpoint that accepts data goes on.
func (w *Watch) GiveUpWhenStopping(d time.Duration) { w.giveUpAfter = d }

// ErrGaveUp ends a batch's retries once the watch has given up on its endpoint.
var ErrGaveUp = errors.New("the collector is stopping and the endpoint did not accept data in time")

// beginStop starts the time a stopping exporter has left to deliver; endStop ends it.
func (w *Watch) beginStop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.giveUpAfter <= 0 || w.giveUpTimer != nil {
		return
	}
	w.stopBegan = w.now()
	w.giveUpTimer = time.AfterFunc(w.giveUpAfter, w.giveUp)
}

func (w *Watch) endStop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.giveUpTimer != nil {
		w.giveUpTimer.Stop()
	}
}

// giveUp is the end of a stopping exporter's time.
func (w *Watch) giveUp() {
	w.mu.Lock()
	w.gaveUp = true
	w.mu.Unlock()
	w.dropIfFailing()
}

// dropIfFailing, once the watch has given up and the endpoint fails, cancels the requests
// in flight and says so, once.
func (w *Watch) dropIfFailing() {
	w.mu.Lock()
	if !w.gaveUp || w.dropping || !w.failingLocked() {
		w.mu.Unlock()
		return
	}
	w.dropping = true
	failed, since, endpoint := w.failed, w.since, w.endpoint
	w.mu.Unlock()
	queue := "not persistent: what is left is dropped"
	if w.storage != nil {
		queue = "persistent: what is left is kept for the next start"
	}
	fields := []zap.Field{zap.String("endpoint", endpoint), zap.String("stopping_for", w.giveUpAfter.String()), zap.String("queue", queue)}
	if failed > 0 {
		fields = append(fields, zap.Int("failed_requests", failed), zap.String("failing_for", w.now().Sub(since).Round(time.Second).String()))
	}
	w.logger.Warn(GivesUp, fields...)
	// After the line: a shutdown that the cancelled requests let end finds it written.
	w.abort(ErrGaveUp)
}

// failingLocked: the last request failed, or one is waiting for an answer and none came
// since the stop began.
func (w *Watch) failingLocked() bool {
	return w.failed > 0 || (w.inFlight > 0 && w.answered.Before(w.stopBegan))
}

// refuses says whether a request is not to be sent, the watch having given up on its endpoint.
func (w *Watch) refuses() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.gaveUp && w.failingLocked()
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
		if w.giveUpAfter <= 0 {
			sent := w.now()
			err := invoker(ctx, method, req, reply, cc, opts...)
			w.sawCall(ctx, sent, cc.Target(), err)
			return err
		}
		// Unavailable, which the exporter retries: its retries have ended with the shutdown,
		// and a persistent queue keeps what a shutdown interrupted.
		if w.refuses() {
			return status.Error(codes.Unavailable, ErrGaveUp.Error())
		}
		call, answered, release := w.send(ctx, cc.Target())
		sent := w.now()
		err := invoker(call, method, req, reply, cc, opts...)
		release()
		if answered() {
			return status.Error(codes.Unavailable, ErrGaveUp.Error())
		}
		if w.sawCall(ctx, sent, cc.Target(), err) && w.refuses() {
			w.dropIfFailing()
			return status.Error(codes.Unavailable, fmt.Sprintf("%v (%v)", ErrGaveUp, err))
		}
		return err
	})}, nil
}

// send counts a request in flight to endpoint and returns its context, which the watch
// cancels when it gives up; answered counts its answer and tells whether the watch cancelled
// it, and release ends the context once the response has been read.
func (w *Watch) send(ctx context.Context, endpoint string) (_ context.Context, answered func() (cancelled bool), release func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	unregister := context.AfterFunc(w.abortCtx, func() { cancel(ErrGaveUp) })
	w.mu.Lock()
	w.inFlight++
	w.endpoint = endpoint
	w.mu.Unlock()
	sent := w.now()
	return ctx, func() bool {
			w.mu.Lock()
			w.inFlight--
			w.answered = w.now()
			w.mu.Unlock()
			// One the watch cancelled failed too: the next is refused, not sent.
			cancelled := errors.Is(context.Cause(ctx), ErrGaveUp)
			if cancelled {
				w.fail(sent)
			}
			return cancelled
		}, func() {
			unregister()
			cancel(nil)
		}
}

type transport struct {
	next  http.RoundTripper
	watch *Watch
}

func (t transport) RoundTrip(req *http.Request) (*http.Response, error) {
	w := t.watch
	if w.giveUpAfter <= 0 {
		sent := w.now()
		resp, err := t.next.RoundTrip(req)
		w.sawRequest(req, sent, resp, err)
		return resp, err
	}
	if w.refuses() {
		return nil, backoff.Permanent(ErrGaveUp)
	}
	ctx, answered, release := w.send(req.Context(), req.URL.Redacted())
	sent := w.now()
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	drop := func(err error) (*http.Response, error) {
		if resp != nil {
			_ = resp.Body.Close()
		}
		release()
		return nil, backoff.Permanent(err)
	}
	if answered() {
		return drop(ErrGaveUp)
	}
	if w.sawRequest(req, sent, resp, err) && w.refuses() {
		w.dropIfFailing()
		return drop(fmt.Errorf("%w (%v)", ErrGaveUp, failure(resp, err)))
	}
	if err != nil {
		release()
		return nil, err
	}
	// The caller reads the body after RoundTrip returns: the context lives until it closes it.
	resp.Body = releasingBody{ReadCloser: resp.Body, release: release}
	return resp, nil
}

// releasingBody releases a request's context when its response body is closed.
type releasingBody struct {
	io.ReadCloser
	release func()
}

func (b releasingBody) Close() error {
	err := b.ReadCloser.Close()
	b.release()
	return err
}

// failure says what a failed request got: its error, or the status it was answered with.
func failure(resp *http.Response, err error) string {
	if err != nil {
		return err.Error()
	}
	return resp.Status
}

// sawRequest takes the outcome of one HTTP request and tells whether it failed: one the
// collector cancelled says nothing of the endpoint; one past its deadline got no answer.
func (w *Watch) sawRequest(req *http.Request, sent time.Time, resp *http.Response, err error) bool {
	ctx := req.Context()
	if errors.Is(ctx.Err(), context.Canceled) {
		return false
	}
	endpoint := req.URL.Redacted()
	switch {
	case err != nil:
		w.unanswered(ctx, sent, endpoint, err)
		return true
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
		// The exporter logs these itself, with the status and the endpoint's words.
		w.fail(sent)
		return true
	case resp.StatusCode < 300:
		w.accept(endpoint)
	}
	return false
}

// sawCall takes the outcome of one gRPC call, as sawRequest does an HTTP request's, and
// tells whether it failed.
func (w *Watch) sawCall(ctx context.Context, sent time.Time, target string, err error) bool {
	if errors.Is(ctx.Err(), context.Canceled) {
		return false
	}
	switch status.Code(err) {
	case codes.OK:
		w.accept(target)
	case codes.Unavailable, codes.DeadlineExceeded:
		w.unanswered(ctx, sent, target, err)
		return true
	case codes.ResourceExhausted, codes.Aborted, codes.Internal:
		w.fail(sent)
		return true
	}
	return false
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
