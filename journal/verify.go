package journal

import (
	"context"
	"errors"
	"sort"

	bolt "go.etcd.io/bbolt"
	"go.uber.org/zap"
)

// VerifyReport is the result of Verify.
type VerifyReport struct {
	// Records counts the records in the intents bucket.
	Records int `json:"records"`
	// ByState counts the decodable records per state.
	ByState map[State]int `json:"byState"`
	// Unsettled counts the decodable records that are not terminal.
	Unsettled int `json:"unsettled"`
	// Corrupt lists records that fail their CRC or do not decode and are
	// still in the intents bucket.
	Corrupt []CorruptError `json:"corrupt,omitempty"`
	// Quarantined lists records moved to quarantine earlier.
	Quarantined []CorruptError `json:"quarantined,omitempty"`
	// Unsupported lists keys of records written by a newer major version.
	Unsupported []string `json:"unsupported,omitempty"`
	// Consistency lists the errors of bbolt's own consistency check.
	Consistency []string `json:"consistency,omitempty"`
}

// OK reports whether the journal verified clean: bbolt is consistent and
// no record is corrupt, quarantined or unreadable by this build.
func (r *VerifyReport) OK() bool {
	return len(r.Corrupt) == 0 && len(r.Quarantined) == 0 && len(r.Unsupported) == 0 && len(r.Consistency) == 0
}

// Verify runs bbolt's consistency check over the whole file and checks the
// CRC of every record. It changes nothing: corrupt records are listed, not
// quarantined. An error is returned only when the check could not run; what
// it found is in the report.
func (j *Journal) Verify(ctx context.Context) (*VerifyReport, error) {
	if j.closed.Load() {
		return nil, ErrClosed
	}
	r := &VerifyReport{ByState: map[State]int{}}
	check := func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			r.Consistency = append(r.Consistency, err.Error())
		}
		return nil
	}
	var err error
	if j.opts.readOnly {
		// No writer can run: bbolt's writer lock is exclusive across
		// processes, and this handle cannot write.
		err = j.view(check)
	} else {
		// Check is safe beside writers only inside a writable
		// transaction, so it takes the commit goroutine's turn.
		err = j.write(ctx, check)
	}
	if err != nil {
		return nil, wrapOp("verify "+j.path, err)
	}
	var scanErr error
	j.scan(ctx, bucketQuarantine, nil, false, func(_ Intent, err error) bool {
		var ce *CorruptError
		if errors.As(err, &ce) {
			r.Quarantined = append(r.Quarantined, *ce)
			return true
		}
		scanErr = err
		return false
	})
	if scanErr == nil {
		j.scan(ctx, bucketIntents, nil, false, func(in Intent, err error) bool {
			var ce *CorruptError
			switch {
			case err == nil:
				r.Records++
				r.ByState[in.State]++
				if in.Unsettled() {
					r.Unsettled++
				}
			case errors.As(err, &ce):
				r.Records++
				r.Corrupt = append(r.Corrupt, *ce)
			case errors.Is(err, ErrUnsupportedVersion):
				r.Records++
				r.Unsupported = append(r.Unsupported, err.Error())
			default:
				scanErr = err
				return false
			}
			return true
		})
	}
	if scanErr != nil {
		return nil, wrapOp("verify "+j.path, scanErr)
	}
	sort.Strings(r.Consistency)
	j.log.Info("journal verified",
		zap.Int("records", r.Records), zap.Int("unsettled", r.Unsettled),
		zap.Int("corrupt", len(r.Corrupt)), zap.Int("quarantined", len(r.Quarantined)),
		zap.Int("consistency-errors", len(r.Consistency)))
	return r, nil
}
