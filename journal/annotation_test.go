package journal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/internal/golden"
)

// annotationView is what the annotation carries of an intent.
func annotationView(in Intent) Intent {
	return Intent{
		SchemaVersion: SchemaVersion, ID: in.ID, State: in.State, ExternalName: in.ExternalName,
		Owner: in.Owner, Attempt: in.Attempt, CreatedAt: in.CreatedAt, UpdatedAt: in.UpdatedAt,
		LookupKeys: in.LookupKeys,
		Outcome:    Settlement{ExternalName: in.Outcome.ExternalName, ErrorClass: in.Outcome.ErrorClass, Reason: in.Outcome.Reason},
	}
}

func TestAnnotationGolden(t *testing.T) {
	in := goldenIntent()
	in.Outcome.Message = "a message that must never reach the annotation"
	got, err := EncodeAnnotation(in)
	if err != nil {
		t.Fatal(err)
	}
	want := golden.Read(t, "annotation-v1.golden.json", []byte(got))
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("EncodeAnnotation: the v1 annotation changed (-golden +got):\n%s", diff)
	}
	if strings.Contains(got, "message") {
		t.Errorf("the annotation carries the error message: %s", got)
	}
	dec, err := DecodeAnnotation(string(want))
	if err != nil {
		t.Fatalf("DecodeAnnotation(golden): %v", err)
	}
	if diff := cmp.Diff(annotationView(goldenIntent()), dec); diff != "" {
		t.Errorf("DecodeAnnotation(golden) (-want +got):\n%s", diff)
	}
}

func TestDecodeAnnotationErrors(t *testing.T) {
	good, err := EncodeAnnotation(goldenIntent())
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		reason string
		value  string
		want   error
	}{
		"Empty":        {"an empty value is not an intent", "", ErrCorrupt},
		"NotJSON":      {"a hand-edited annotation that is not JSON", "pending", ErrCorrupt},
		"JSONArray":    {"JSON of the wrong shape", `[1,2]`, ErrCorrupt},
		"NoVersion":    {"the version is required", strings.Replace(good, `"v":1,`, ``, 1), ErrCorrupt},
		"V2":           {"a newer major version is refused, never guessed at", strings.Replace(good, `"v":1`, `"v":2`, 1), ErrUnsupportedVersion},
		"V2NewShape":   {"a newer major version whose fields changed type is unsupported, not corrupt", `{"v":2,"id":7,"state":["x"]}`, ErrUnsupportedVersion},
		"V0":           {"version 0 never existed", strings.Replace(good, `"v":1`, `"v":0`, 1), ErrUnsupportedVersion},
		"NoID":         {"the intent ID is required", `{"v":1,"state":"pending"}`, ErrCorrupt},
		"BadID":        {"a malformed intent ID", `{"v":1,"id":"xyz","state":"pending"}`, ErrCorrupt},
		"UnknownState": {"a state this build does not know", strings.Replace(good, `"state":"succeeded"`, `"state":"teleported"`, 1), ErrCorrupt},
		"Oversized":    {"values over MaxAnnotationSize are refused before parsing", `{"v":1,"pad":"` + strings.Repeat("x", MaxAnnotationSize) + `"}`, ErrCorrupt},
		"Truncated":    {"a value cut short", good[:len(good)/2], ErrCorrupt},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := DecodeAnnotation(tc.value)
			if !errors.Is(err, tc.want) {
				t.Errorf("%s\nDecodeAnnotation(%.60q): got %v, want errors.Is %v", tc.reason, tc.value, err, tc.want)
			}
		})
	}
}

func TestAnnotationTolerantOfUnknownFields(t *testing.T) {
	good, err := EncodeAnnotation(goldenIntent())
	if err != nil {
		t.Fatal(err)
	}
	v := strings.Replace(good, `{"v":1,`, `{"v":1,"leaseName":"x","extra":{"a":[1]},`, 1)
	got, err := DecodeAnnotation(v)
	if err != nil {
		t.Fatalf("DecodeAnnotation with unknown fields: %v", err)
	}
	if diff := cmp.Diff(annotationView(goldenIntent()), got); diff != "" {
		t.Errorf("unknown fields must be ignored (-want +got):\n%s", diff)
	}
}

func TestEncodeAnnotationBounded(t *testing.T) {
	in := goldenIntent()
	for i := range MaxLookupKeys {
		in.LookupKeys[strings.Repeat("k", i+1)] = strings.Repeat("v", 100)
	}
	s, err := EncodeAnnotation(in)
	if err != nil {
		t.Fatalf("EncodeAnnotation with large lookup keys: %v", err)
	}
	if len(s) > MaxAnnotationSize {
		t.Fatalf("annotation is %d bytes, over the %d bound", len(s), MaxAnnotationSize)
	}
	if !strings.Contains(s, `"keysDropped":true`) {
		t.Errorf("lookup keys that do not fit must be dropped and flagged: %s", s)
	}
	in = goldenIntent()
	in.ExternalName = strings.Repeat("n", maxFieldSize)
	in.Outcome.ExternalName = strings.Repeat("n", maxFieldSize)
	if _, err := EncodeAnnotation(in); !errors.Is(err, ErrInvalid) {
		t.Errorf("an annotation that cannot fit even without lookup keys: got %v, want ErrInvalid", err)
	}
	in = goldenIntent()
	in.ID = ID{}
	if _, err := EncodeAnnotation(in); !errors.Is(err, ErrInvalid) {
		t.Errorf("an intent without ID: got %v, want ErrInvalid", err)
	}
}

func TestAnnotationMapHelpers(t *testing.T) {
	orig := map[string]string{"crossplane.io/external-name": "x"}
	set, err := SetAnnotation(orig, goldenIntent())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := orig[AnnotationKey]; ok {
		t.Error("SetAnnotation modified its input map")
	}
	in, ok, err := AnnotationIntent(set)
	if err != nil || !ok || in.ID != fixedID {
		t.Errorf("AnnotationIntent(SetAnnotation(...)) = %v, %v, %v; want the golden intent", in.ID, ok, err)
	}
	removed := RemoveAnnotation(set)
	if _, ok := removed[AnnotationKey]; ok {
		t.Error("RemoveAnnotation left the annotation")
	}
	if _, ok := set[AnnotationKey]; !ok {
		t.Error("RemoveAnnotation modified its input map")
	}
	if diff := cmp.Diff(orig, removed); diff != "" {
		t.Errorf("RemoveAnnotation(SetAnnotation(m)) != m (-want +got):\n%s", diff)
	}
	if _, ok, err := AnnotationIntent(nil); ok || err != nil {
		t.Errorf("AnnotationIntent(nil) = ok %v, err %v; want no intent", ok, err)
	}
	_, ok, err = AnnotationIntent(map[string]string{AnnotationKey: "garbage"})
	if !ok || !errors.Is(err, ErrCorrupt) {
		t.Errorf("a present but malformed annotation: got ok %v, err %v; want ok true and ErrCorrupt (fail closed)", ok, err)
	}
	if m, err := SetAnnotation(nil, goldenIntent()); err != nil || len(m) != 1 {
		t.Errorf("SetAnnotation(nil, ...) = %v, %v; want a one-entry map", m, err)
	}
}

// FuzzDecodeAnnotation checks that any string decodes cleanly or gives
// ErrCorrupt / ErrUnsupportedVersion, never a panic, and that a decoded
// annotation re-encodes within bounds to the same intent.
func FuzzDecodeAnnotation(f *testing.F) {
	good, err := os.ReadFile(filepath.Join("testdata", "annotation-v1.golden.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(good))
	f.Add(`{"v":1,"id":"0f1e2d3c4b5a69788796a5b4c3d2e1f0","state":"pending"}`)
	f.Add(`{"v":2}`)
	f.Add(`{"v":1,"id":"0f1e2d3c4b5a69788796a5b4c3d2e1f0","state":"failed","outcome":{"errorClass":"conflict"}}`)
	f.Fuzz(func(t *testing.T, s string) {
		in, err := DecodeAnnotation(s)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrUnsupportedVersion) {
				t.Fatalf("DecodeAnnotation: error %v is neither ErrCorrupt nor ErrUnsupportedVersion", err)
			}
			return
		}
		again, err := EncodeAnnotation(in)
		if err != nil {
			// A decoded annotation can be re-encoded unless its fields
			// were already at the bound and the keys cannot be dropped.
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("EncodeAnnotation(decoded): %v", err)
			}
			return
		}
		back, err := DecodeAnnotation(again)
		if err != nil {
			t.Fatalf("DecodeAnnotation(EncodeAnnotation(decoded)): %v", err)
		}
		if len(again) > MaxAnnotationSize {
			t.Fatalf("EncodeAnnotation produced %d bytes, over the bound", len(again))
		}
		if strings.Contains(again, `"keysDropped":true`) {
			// Keys that did not fit were dropped on purpose.
			back.LookupKeys, in.LookupKeys = nil, nil
		}
		if diff := cmp.Diff(in, back); diff != "" {
			t.Fatalf("round trip changed the intent (-first +second):\n%s", diff)
		}
	})
}
