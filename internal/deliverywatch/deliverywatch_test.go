// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package deliverywatch

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componentstatus"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func newTestWatch(logUnanswered bool) (*Watch, *observer.ObservedLogs, *time.Time) {
	core, logs := observer.New(zapcore.InfoLevel)
	clock := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	return New(zap.New(core), logUnanswered, func() time.Time { return clock }), logs, &clock
}

func request(t *testing.T, ctx context.Context) *http.Request {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://user:secret@mimir.example.com/api/v1/push", nil)
	require.NoError(t, err)
	return req
}

// Failed requests are counted from the first; the first accepted one after them says how
// many and for how long, with the endpoint's password redacted.
func TestAnsweringAgainEndsARun(t *testing.T) {
	w, logs, clock := newTestWatch(true)
	ctx := context.Background()
	w.sawRequest(request(t, ctx), w.now(), nil, errors.New("dial tcp 10.0.0.1:443: connect: connection refused"))
	*clock = clock.Add(90 * time.Second)
	w.sawRequest(request(t, ctx), w.now(), &http.Response{StatusCode: http.StatusServiceUnavailable}, nil)
	w.sawRequest(request(t, ctx), w.now(), &http.Response{StatusCode: http.StatusTooManyRequests}, nil)
	w.sawRequest(request(t, ctx), w.now(), &http.Response{StatusCode: http.StatusNoContent}, nil)
	w.sawRequest(request(t, ctx), w.now(), &http.Response{StatusCode: http.StatusNoContent}, nil)

	unanswered := logs.FilterMessage(Unanswered).All()
	require.Len(t, unanswered, 1, "only the request without an answer; the exporter logs statuses")
	assert.Equal(t, "https://user:xxxxx@mimir.example.com/api/v1/push", unanswered[0].ContextMap()["endpoint"])
	again := logs.FilterMessage(AnswersAgain).All()
	require.Len(t, again, 1, "once, at the end of the run")
	assert.EqualValues(t, 3, again[0].ContextMap()["failed_requests"])
	assert.Equal(t, "1m30s", again[0].ContextMap()["after"])
}

// A request the collector cancelled (a shutdown) is not the endpoint's failure, and a 4xx
// other than 429 is an answer: neither starts a run.
func TestCancelledRequestsAndRejectionsAreNotOutages(t *testing.T) {
	w, logs, _ := newTestWatch(true)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w.sawRequest(request(t, ctx), w.now(), nil, context.Canceled)
	w.sawRequest(request(t, context.Background()), w.now(), &http.Response{StatusCode: http.StatusBadRequest}, nil)
	w.sawCall(ctx, w.now(), "otlp.example.com:4317", status.Error(codes.Canceled, "context canceled"))
	w.sawRequest(request(t, context.Background()), w.now(), &http.Response{StatusCode: http.StatusOK}, nil)
	assert.Zero(t, logs.Len())
}

// Without logUnanswered (the exporter logs each retry itself), a request without an answer
// is counted but not logged; a gRPC call is watched as an HTTP request is.
func TestGRPCCallsAndQuietUnanswered(t *testing.T) {
	w, logs, _ := newTestWatch(false)
	ctx := context.Background()
	w.sawCall(ctx, w.now(), "otlp.example.com:4317", status.Error(codes.Unavailable, "connection refused"))
	w.sawCall(ctx, w.now(), "otlp.example.com:4317", status.Error(codes.ResourceExhausted, "rate limited"))
	w.sawCall(ctx, w.now(), "otlp.example.com:4317", nil)
	assert.Zero(t, logs.FilterMessage(Unanswered).Len())
	again := logs.FilterMessage(AnswersAgain).All()
	require.Len(t, again, 1)
	assert.EqualValues(t, 2, again[0].ContextMap()["failed_requests"])
	assert.Equal(t, "otlp.example.com:4317", again[0].ContextMap()["endpoint"])
}

// Consumers in flight when the endpoint comes back: one is accepted, another, sent before
// that answer, fails after it. That failure belongs to the run that ended, so it neither
// starts a new one nor gets a second "accepts data again" at the next accepted request.
func TestAFailureSentBeforeTheEndIsPartOfTheRunThatEnded(t *testing.T) {
	w, logs, clock := newTestWatch(true)
	ctx := context.Background()
	w.sawRequest(request(t, ctx), w.now(), nil, errors.New("connection refused"))
	stale := *clock // consumer A sends now
	*clock = clock.Add(time.Second)
	w.sawRequest(request(t, ctx), w.now(), &http.Response{StatusCode: http.StatusNoContent}, nil) // consumer B is accepted
	*clock = clock.Add(time.Second)
	w.sawRequest(request(t, ctx), stale, &http.Response{StatusCode: http.StatusServiceUnavailable}, nil) // A's answer, late
	w.sawRequest(request(t, ctx), stale, nil, errors.New("connection reset by peer"))
	*clock = clock.Add(time.Second)
	w.sawRequest(request(t, ctx), w.now(), &http.Response{StatusCode: http.StatusNoContent}, nil)
	assert.Equal(t, 1, logs.FilterMessage(AnswersAgain).Len())
	assert.Equal(t, 1, logs.FilterMessage(Unanswered).Len(), "the late reset is not logged")

	// A request sent after the answer that fails starts a new run.
	w.sawRequest(request(t, ctx), w.now(), nil, errors.New("connection refused"))
	*clock = clock.Add(time.Second)
	w.sawRequest(request(t, ctx), w.now(), &http.Response{StatusCode: http.StatusNoContent}, nil)
	assert.Equal(t, 2, logs.FilterMessage(AnswersAgain).Len())
}

// A request past its deadline got no answer in time, and the line says so.
func TestPastTheDeadlineIsNoAnswer(t *testing.T) {
	w, logs, _ := newTestWatch(true)
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	w.sawRequest(request(t, ctx), w.now(), nil, errors.New("net/http: request canceled"))
	lines := logs.FilterMessage(Unanswered).All()
	require.Len(t, lines, 1)
	assert.Contains(t, lines[0].ContextMap()["error"], "no answer before the request's deadline")
}

type reportingHost struct {
	component.Host
	events []*componentstatus.Event
}

func (h *reportingHost) Report(ev *componentstatus.Event) { h.events = append(h.events, ev) }

// The host an exporter starts on has the collector's extensions and the watch, and passes
// status events on.
func TestHostWithWatch(t *testing.T) {
	w, _, _ := newTestWatch(false)
	inner := &reportingHost{Host: componenttest.NewNopHost()}
	h := withWatch(inner, w)
	assert.Same(t, w, h.GetExtensions()[ID])
	componentstatus.ReportStatus(h, componentstatus.NewEvent(componentstatus.StatusOK))
	assert.Len(t, inner.events, 1)
}

// A watch that can give up keeps each request's context alive until the caller has read and
// closed the response, which it does after RoundTrip has returned: a large answer (an OTLP
// partial-success message, a backend's error page) arrives whole.
func TestGivingUpWatchLetsTheAnswerBeRead(t *testing.T) {
	body := strings.Repeat("x", 8<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	w, _, _ := newTestWatch(true)
	w.GiveUpWhenStopping(time.Second)
	client := &http.Client{Transport: transport{next: http.DefaultTransport, watch: w}}
	resp, err := client.Get(srv.URL)
	require.NoError(t, err)
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Len(t, got, len(body))
}

// A request the watch cancels when it gives up counts as failed: the next one is refused
// without being sent, rather than sent and cancelled at once.
func TestAfterGivingUpOnAHangingEndpointNothingIsSent(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	core, logs := observer.New(zapcore.InfoLevel)
	w := New(zap.New(core), true, time.Now)
	w.GiveUpWhenStopping(time.Hour) // given up by hand below
	var sent atomic.Int32
	counting := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		sent.Add(1)
		return http.DefaultTransport.RoundTrip(r)
	})
	client := &http.Client{Transport: transport{next: counting, watch: w}}

	done := make(chan error, 1)
	go func() {
		resp, err := client.Post(srv.URL, "application/x-protobuf", nil)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	require.Eventually(t, func() bool { return requests.Load() == 1 }, 10*time.Second, time.Millisecond)
	w.beginStop()
	w.giveUp()
	require.ErrorIs(t, <-done, ErrGaveUp, "the request in flight is cancelled")
	assert.Equal(t, 1, logs.FilterMessage(GivesUp).Len())

	_, err := client.Post(srv.URL, "application/x-protobuf", nil)
	require.ErrorIs(t, err, ErrGaveUp)
	assert.EqualValues(t, 1, sent.Load(), "the second request is not sent")
	w.endStop()
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
