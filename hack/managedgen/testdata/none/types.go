// Package none is managedgen's test input: no managed kind.
package none

type Thing struct{ Spec ThingSpec }

type ThingSpec struct{ Name string }
