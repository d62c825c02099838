package crashmatrix

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/intentjournal/intentjournal/internal/failpoint"
	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
)

// Point is where a trial crashes the provider.
type Point string

// Crash points, in the order of the create path.
const (
	// BeforeBegin: the intent is built, nothing is durable.
	BeforeBegin Point = "before-begin"
	// AfterBegin: the intent is durable; the create is not dispatched.
	AfterBegin Point = "after-begin"
	// DuringCreate: the fake cloud has committed the create and holds the
	// answer (create latency); the harness SIGKILLs the provider then.
	DuringCreate Point = "during-create"
	// AfterCreate: the cloud answered; the callback has not run.
	AfterCreate Point = "after-create"
	// AfterSettle: the journal says succeeded with the external name; the
	// external name is not persisted on the managed resource.
	AfterSettle Point = "after-settle"
	// DuringRecovery: a first crash (after-begin or during-create) leaves
	// unsettled intents; the restarted provider is SIGKILLed midway through
	// its recovery pass, after some candidates are resolved.
	DuringRecovery Point = "during-recovery"
)

// Points lists every crash point.
var Points = []Point{BeforeBegin, AfterBegin, DuringCreate, AfterCreate, AfterSettle, DuringRecovery}

// Failpoint returns the failpoint that crashes the provider at p, or ""
// when the harness kills it from outside (DuringCreate) or in two steps
// (DuringRecovery).
func (p Point) Failpoint() string {
	switch p {
	case BeforeBegin:
		return failpoint.BeforeBegin
	case AfterBegin:
		return failpoint.AfterBegin
	case AfterCreate:
		return failpoint.AfterCreate
	case AfterSettle:
		return failpoint.AfterSettle
	}
	return ""
}

// Mode is how the provider records intents.
type Mode string

// Modes.
const (
	// ModeJournal runs the provider with --journal.
	ModeJournal Mode = "journal"
	// ModeAnnotations runs it with --annotation-only: the intent
	// annotation is the only record.
	ModeAnnotations Mode = "annotations"
)

// ParseMode reads a -crash.mode value.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeJournal, ModeAnnotations:
		return m, nil
	}
	return "", fmt.Errorf("crashmatrix: mode %q is not %q or %q", s, ModeJournal, ModeAnnotations)
}

// Faults are the fake cloud's create faults during a trial.
type Faults struct {
	CreateLatency time.Duration
	ErrorRate     float64 // creates answered 500, not carried out
	AmbiguousRate float64 // creates committed, answer dropped
}

// Plan is one trial, derived from its seed alone.
type Plan struct {
	Seed  uint64
	Point Point
	// RecordSets and Networks are how many managed resources of each kind
	// the trial creates; one of them may be zero.
	RecordSets, Networks int
	// KillOnHit is the failpoint hit that kills the provider, or for
	// DuringCreate how many of the trial's creates the cloud has committed
	// when the harness kills it.
	KillOnHit int
	// First is the point of the first crash of a DuringRecovery trial
	// (AfterBegin or DuringCreate), and RecoveryKillOnHit the resolved
	// candidate after which its recovery pass is killed.
	First             Point
	RecoveryKillOnHit int
	Faults            Faults
	// LookAlikeRecordSets and LookAlikeNetworks are how many of the
	// trial's RecordSets and Networks, the first ones of each kind, meet a
	// look-alike (issue #15): a cloud object that another cluster made
	// before the managed resource existed, with the same name, zone and
	// crossplane tags, but no intentjournal UID tag. A RecordSet's
	// look-alike holds its natural key, so its create meets a 409.
	LookAlikeRecordSets, LookAlikeNetworks int
	// LookAlikesWithinSkew says the look-alikes are made within the
	// clock-skew allowance (issue #29): just before the managed resources,
	// with their crossplane tags but arguments of their own (a RecordSet's
	// TTL and rrdatas, a Network's CIDR block), so that their creation
	// time cannot tell them apart. Otherwise they are made older (issue
	// #15), with the managed resources' very spec. On a line that can
	// (WithWeakTags), the provider then sends no UID tag, and only a weak
	// proof (crossplane tags within the allowance) can find its own
	// resources.
	LookAlikesWithinSkew bool
	// LookAlikesSuperset says the within-skew look-alikes and the foreign
	// records hold everything the managed resource's create sends and
	// more, as an attacker would make them: a RecordSet's or Network's
	// look-alike has its very spec and crossplane tags plus a tag of its
	// own; a foreign record has the Record's answer with TTL 600 where the
	// Record leaves the TTL to its default (the trial's Records then set
	// none). Applying the create's arguments would remove the tag or reset
	// the TTL, so none may be adopted.
	LookAlikesSuperset bool
	// ForeignRecords is how many Records the trial creates on a line with
	// a tagless template kind (WithRecords), each of which meets a foreign
	// record (issue #29): one the harness makes at the Record's key once
	// the key probe found it free, before the create, so that the create
	// meets "already exists" and only the key-vacant proof (a weak one)
	// could take the foreign record for ours.
	ForeignRecords int
}

// OlderLookAlikesOnly returns p as NewPlan drew it before issue #29: its
// look-alikes older, with the managed resources' spec, and no foreign
// records (-crash.older-lookalikes).
func (p Plan) OlderLookAlikesOnly() Plan {
	p.LookAlikesWithinSkew, p.ForeignRecords, p.LookAlikesSuperset = false, 0, false
	return p
}

// Total returns the number of RecordSets and Networks; the Records of
// ForeignRecords come besides.
func (p Plan) Total() int { return p.RecordSets + p.Networks }

// LookAlikes returns the number of look-alikes the plan makes, foreign
// records aside.
func (p Plan) LookAlikes() int { return p.LookAlikeRecordSets + p.LookAlikeNetworks }

// Kinds returns the kinds the plan creates.
func (p Plan) Kinds() []string {
	var k []string
	if p.RecordSets > 0 {
		k = append(k, KindRecordSet)
	}
	if p.Networks > 0 {
		k = append(k, KindNetwork)
	}
	return k
}

// String describes the plan in one line, for logs.
func (p Plan) String() string {
	s := fmt.Sprintf("seed=%d point=%s rs=%d net=%d kill@%d latency=%s error=%.2f ambiguous=%.2f",
		p.Seed, p.Point, p.RecordSets, p.Networks, p.KillOnHit, p.Faults.CreateLatency, p.Faults.ErrorRate, p.Faults.AmbiguousRate)
	if p.Point == DuringRecovery {
		s += fmt.Sprintf(" first=%s recovery-kill@%d", p.First, p.RecoveryKillOnHit)
	}
	if p.LookAlikes() > 0 {
		s += fmt.Sprintf(" look-alikes=rs:%d,net:%d", p.LookAlikeRecordSets, p.LookAlikeNetworks)
		if p.LookAlikesWithinSkew {
			s += ",within-skew"
		}
	}
	if p.ForeignRecords > 0 {
		s += fmt.Sprintf(" foreign-records=%d", p.ForeignRecords)
	}
	if p.LookAlikesSuperset {
		s += " superset"
	}
	return s
}

// Managed kinds, as in reports and tables.
const (
	KindRecordSet = testbed.KindRecordSet
	KindNetwork   = testbed.KindNetwork
	// KindRecord is the tagless record kind a line may serve besides
	// (WithRecords): the fake cloud's record set, without tags, whose ID
	// its Terraform resource composes from zone, name and type.
	KindRecord = "Record"
)

// NewPlan derives a trial from seed. With nameKeyedOnly the trial creates
// RecordSets only. About one trial in three meets look-alikes: one or two
// of each kind it creates, at least one in all; in half of them the
// look-alikes are made within the clock-skew allowance, and in two thirds
// the trial also creates one or two Records that meet foreign records.
// Their draws come last, so they changed no other field of any seed's plan
// when they were added.
func NewPlan(seed uint64, nameKeyedOnly bool) Plan {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	p := Plan{Seed: seed, Point: Points[rng.IntN(len(Points))]}
	total := 4 + rng.IntN(7) // 4..10
	switch mix := rng.IntN(3); {
	case nameKeyedOnly || mix == 0:
		p.RecordSets = total
	case mix == 1:
		p.Networks = total
	default:
		p.RecordSets = total / 2
		p.Networks = total - p.RecordSets
	}
	p.Faults = Faults{
		CreateLatency: time.Duration(300+rng.IntN(1200)) * time.Millisecond,
		ErrorRate:     []float64{0, 0, 0.1, 0.25}[rng.IntN(4)],
		AmbiguousRate: []float64{0, 0, 0.15, 0.3}[rng.IntN(4)],
	}
	// The first half of the hits: later ones are often never reached (a
	// create that failed ambiguously settles through the resolver).
	p.KillOnHit = 1 + rng.IntN((total+1)/2)
	if p.Point == DuringRecovery {
		p.First = []Point{AfterBegin, DuringCreate}[rng.IntN(2)]
		p.RecoveryKillOnHit = 1 + rng.IntN(min(3, total))
	}
	if p.Point == DuringCreate || p.First == DuringCreate {
		// The kill must land while the cloud holds the answer.
		p.Faults.CreateLatency = max(p.Faults.CreateLatency, time.Second)
	}
	// New draws go below this line, never above it: a draw above would
	// change every later field of every seed, and old seeds would no
	// longer replay the trials they name in docs and reports.
	if rng.IntN(3) == 0 {
		p.LookAlikeRecordSets = rng.IntN(min(2, p.RecordSets) + 1)
		p.LookAlikeNetworks = rng.IntN(min(2, p.Networks) + 1)
		if p.LookAlikes() == 0 {
			if p.RecordSets > 0 {
				p.LookAlikeRecordSets = 1
			} else {
				p.LookAlikeNetworks = 1
			}
		}
		// Issue #29's draws, after #15's: the seeds of #15's runs keep
		// their look-alike counts.
		p.LookAlikesWithinSkew = rng.IntN(2) == 0
		p.ForeignRecords = rng.IntN(3)
		// Supersets last, so that the earlier draws of a seed stay.
		if p.LookAlikesWithinSkew || p.ForeignRecords > 0 {
			p.LookAlikesSuperset = rng.IntN(2) == 0
		}
	}
	return p
}
