package cluster

import (
	"context"
	"errors"
	"testing"

	"github.com/nats-io/nats.go"
)

// TestRetry checks which errors a write retries: transient ones until the
// write succeeds, permanent ones and a conflict never, and none once the
// caller's context ended.
func TestRetry(t *testing.T) {
	bg := context.Background()
	calls := 0
	err := retry(bg, func(int) error {
		if calls++; calls < 3 {
			return nats.ErrTimeout
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Errorf("transient twice: err %v after %d calls, want nil after 3", err, calls)
	}
	for _, perm := range []error{errConflict, errDupMsg, ErrFenced} {
		calls = 0
		err = retry(bg, func(int) error { calls++; return perm })
		if err != perm || calls != 1 {
			t.Errorf("%v: err %v after %d calls, want it after 1", perm, err, calls)
		}
	}
	// A retry that reaches a replicated stream's leader while the earlier
	// attempt is still being replicated is told so; once that attempt is
	// stored, the retry is refused as a duplicate, which is what tells the
	// caller that its write was applied.
	calls = 0
	err = retry(bg, func(int) error {
		if calls++; calls == 1 {
			return classify(&apiError{Code: 409, ErrCode: 10158})
		}
		return classify(&apiError{Code: 400, ErrCode: 10201})
	})
	if !errors.Is(err, errDupMsg) || calls != 2 {
		t.Errorf("in process, then duplicate: err %v after %d calls, want a duplicate after 2", err, calls)
	}
	ctx, cancel := context.WithCancel(bg)
	calls = 0
	err = retry(ctx, func(int) error { calls++; cancel(); return context.DeadlineExceeded })
	if calls != 1 || err == nil {
		t.Errorf("cancelled: err %v after %d calls, want an error after 1", err, calls)
	}
}

// TestClassify checks the server answers read as "try again" and the ones
// that are final.
func TestClassify(t *testing.T) {
	for _, c := range []struct {
		e    apiError
		want error
	}{
		{apiError{Code: 503, ErrCode: 10008}, errUnavailable}, // JetStream temporarily unavailable
		{apiError{Code: 503, ErrCode: 10163}, errUnavailable}, // last-sequence check not ready
		{apiError{Code: 400, ErrCode: 10176}, errUnavailable}, // batch incomplete
		{apiError{Code: 409, ErrCode: 10158}, errUnavailable}, // an earlier attempt still in process
		{apiError{Code: 429, ErrCode: 10210}, errUnavailable}, // too many atomic batches in flight
		{apiError{Code: 429, ErrCode: 10211}, errUnavailable}, // too many fast batches in flight
		{apiError{Code: 400, ErrCode: 10071}, errConflict},    // wrong last sequence
		{apiError{Code: 400, ErrCode: 10164}, errConflict},    // the same, replicated
		{apiError{Code: 400, ErrCode: 10201}, errDupMsg},      // duplicate in batch
	} {
		if got := classify(&c.e); !errors.Is(got, c.want) {
			t.Errorf("classify(%+v) = %v, want %v", c.e, got, c.want)
		}
	}
	if err := classify(&apiError{Code: 400, ErrCode: 10205}); transient(context.Background(), err) {
		t.Errorf("batch publish disabled (10205) read as transient: %v", err)
	}
}
