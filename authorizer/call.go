package authorizer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	sarv1 "github.com/gatehouse-dev/gatehouse/internal/sarv1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/clock"
)

// This file makes one call to the webhook the way kube-apiserver's REST
// client makes it: a POST of the review to the kubeconfig's URL with
// ?timeout=, bounded by the per-call timeout; when the answer is 429 or 5xx
// with a Retry-After header (in seconds), the client waits that long and posts
// again, up to 10 more times, within the same timeout.

// maxRetryAfterRetries is client-go's maxRetries for a request.
const maxRetryAfterRetries = 10

// callOutcome is what one call (one step of the retry backoff) produced.
type callOutcome struct {
	status reviewStatus
	// full is the answer read in full (readFull), conditions the
	// conditions review's answer (readConditions).
	full       *conditionalStatus
	conditions *sarv1.AuthorizationConditionsReview
	statusCode int // of the last response, 0 when none came
	requests   int
	err        error
}

func (w *Webhook) call(parent context.Context, body []byte) callOutcome {
	return w.callAs(parent, body, readPlain)
}

// readMode is what a call posts and reads: a SubjectAccessReview read as
// Authorize reads it (readPlain) or in full (readFull, for
// AuthorizeConditionally), or an AuthorizationConditionsReview to the
// conditions review endpoint (readConditions).
type readMode uint8

const (
	readPlain readMode = iota
	readFull
	readConditions
)

func (w *Webhook) callAs(parent context.Context, body []byte, mode readMode) callOutcome {
	ctx, cancel := withClockTimeout(parent, w.clock, w.timeout)
	defer cancel()
	var out callOutcome
	var wait time.Duration
	for n := 0; ; n++ {
		if err := ctx.Err(); err != nil {
			out.err = err
			return out
		}
		if n > 0 && wait > 0 {
			sleepCtx(ctx, w.clock, wait)
		}
		client, req := w.client, w.newRequest(ctx, body)
		if mode == readConditions {
			client, req = w.conds.client, w.conds.newRequest(ctx, body)
		}
		resp, err := client.Do(req)
		out.requests++
		if err != nil {
			out.err = err
			return out
		}
		if n < maxRetryAfterRetries {
			if secs, ok := retryAfterWait(resp); ok {
				drainAndClose(resp)
				wait = time.Duration(secs) * time.Second
				continue
			}
		}
		switch mode {
		case readPlain:
			out.statusCode, out.status, out.err = w.readResponse(resp)
		case readFull:
			out.statusCode, out.full, out.err = w.readFullResponse(resp)
		case readConditions:
			out.statusCode, out.conditions, out.err = w.readConditionsResponse(resp)
		}
		return out
	}
}

// newRequest is http.NewRequestWithContext without parsing the URL again:
// the URL and the headers, parsed once, are shared by every request
// (transports only read them; the credential transports set theirs on a
// copy, and redirects build new requests).
func (w *Webhook) newRequest(ctx context.Context, body []byte) *http.Request {
	return postRequest(ctx, w.parsedURL, w.header, body)
}

// postRequest is a POST of body to u with header.
func postRequest(ctx context.Context, u *url.URL, header http.Header, body []byte) *http.Request {
	req := &http.Request{
		Method:        http.MethodPost,
		URL:           u,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        header,
		Body:          io.NopCloser(bytes.NewReader(body)),
		GetBody:       func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil },
		ContentLength: int64(len(body)),
		Host:          u.Host,
	}
	return req.WithContext(ctx)
}

// retryAfterWait reports whether client-go would post again after resp: a 429
// or 5xx with an integer Retry-After header.
func retryAfterWait(resp *http.Response) (int, bool) {
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode < 500 {
		return 0, false
	}
	h := resp.Header.Get("Retry-After")
	if h == "" {
		return 0, false
	}
	secs, err := strconv.Atoi(h)
	return secs, err == nil
}

// readResponse reads and closes the body and interprets the answer. The
// status code is 0 when the body could not be read or the content type does
// not parse, as with client-go.
func (w *Webhook) readResponse(resp *http.Response) (int, reviewStatus, error) {
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return 0, reviewStatus{}, fmt.Errorf("unexpected error when reading response body. Please retry. Original error: %w", err)
	}
	if len(body) > maxResponseBytes {
		return 0, reviewStatus{}, fmt.Errorf("the webhook's response is larger than %d bytes", maxResponseBytes)
	}
	ct := resp.Header.Get("Content-Type")
	st, err := decodeReview(resp.StatusCode, ct, resp.Header.Get("Retry-After"), body, w.v1beta1, w.conditional)
	code := resp.StatusCode
	if isContentTypeError(ct, err) {
		code = 0
	}
	return code, st, err
}

func isContentTypeError(ct string, err error) bool {
	if err == nil || ct == "" {
		return false
	}
	var se *apierrors.StatusError
	return errors.As(err, &se) && se.ErrStatus.Reason == "InternalError" &&
		strings.HasPrefix(se.ErrStatus.Message, "Internal error occurred: mime:")
}

func drainAndClose(resp *http.Response) {
	// client-go reads up to 2 KiB of a body it discards, so that the
	// connection can be reused.
	const maxDrain = 2 << 10
	if resp.ContentLength <= maxDrain {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrain))
	}
	resp.Body.Close()
}

// shouldRetry is kube-apiserver's webhook.DefaultShouldRetry: connection
// resets, lost HTTP/2 connections, 500, 504 (and reason Timeout), 429, and
// anything that carries a Retry-After delay.
func shouldRetry(err error) bool {
	if isConnectionReset(err) || isHTTP2ConnectionLost(err) ||
		apierrors.IsInternalError(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) {
		return true
	}
	_, delay := apierrors.SuggestsClientDelay(err)
	return delay
}

func isConnectionReset(err error) bool {
	var errno syscall.Errno
	return errors.As(err, &errno) && errno == syscall.ECONNRESET
}

func isHTTP2ConnectionLost(err error) bool {
	return err != nil && strings.Contains(err.Error(), "http2: client connection lost")
}

func isNetTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne != nil && ne.Timeout()
}

// Results of an attempt, the values of the metrics' result label.
const (
	resultSuccess  = "success"
	resultCanceled = "canceled"
	resultTimeout  = "timeout"
	resultError    = "error"
)

// attemptResult classifies an attempt as kube-apiserver does. ctx is the
// caller's context: "canceled" means the caller gave up, "timeout" that the
// attempt ran out of time or the webhook said so.
func attemptResult(ctx context.Context, err error, statusCode int) string {
	switch {
	case err == nil:
		return resultSuccess
	case ctx.Err() != nil:
		return resultCanceled
	case isNetTimeout(err) || errors.Is(err, context.DeadlineExceeded) || apierrors.IsTimeout(err) ||
		statusCode == http.StatusGatewayTimeout:
		return resultTimeout
	}
	return resultError
}

// sleepCtx waits d on clk, or until ctx is done; it reports whether the whole
// time passed.
func sleepCtx(ctx context.Context, clk clock.Clock, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := clk.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C():
		return true
	}
}

// withClockTimeout is context.WithTimeout on the caller's clock, so that
// tests drive timeouts with a fake clock. Its Err is
// context.DeadlineExceeded once the time is up.
func withClockTimeout(parent context.Context, clk clock.Clock, d time.Duration) (context.Context, context.CancelFunc) {
	if isRealClock(clk) {
		return context.WithTimeout(parent, d)
	}
	inner, cancel := context.WithCancelCause(parent)
	c := &clockTimeoutCtx{Context: inner, deadline: clk.Now().Add(d)}
	fire := func() {
		c.mu.Lock()
		c.expired = true
		c.mu.Unlock()
		cancel(context.DeadlineExceeded)
	}
	var stop func() bool
	if de, ok := clk.(clock.WithDelayedExecution); ok {
		stop = de.AfterFunc(d, fire).Stop
	} else {
		t := clk.NewTimer(d)
		stop = t.Stop
		go func() {
			select {
			case <-t.C():
				fire()
			case <-inner.Done():
			}
		}()
	}
	return c, func() {
		stop()
		cancel(context.Canceled)
	}
}

type clockTimeoutCtx struct {
	context.Context
	deadline time.Time

	mu      sync.Mutex
	expired bool
}

func (c *clockTimeoutCtx) Deadline() (time.Time, bool) {
	if d, ok := c.Context.Deadline(); ok && d.Before(c.deadline) {
		return d, true
	}
	return c.deadline, true
}

func (c *clockTimeoutCtx) Err() error {
	err := c.Context.Err()
	if err == nil {
		return nil
	}
	if parentErr := context.Cause(c.Context); parentErr == context.DeadlineExceeded {
		c.mu.Lock()
		expired := c.expired
		c.mu.Unlock()
		if expired {
			return context.DeadlineExceeded
		}
	}
	return err
}

func isRealClock(clk clock.PassiveClock) bool {
	switch clk.(type) {
	case clock.RealClock, *clock.RealClock:
		return true
	}
	return false
}
