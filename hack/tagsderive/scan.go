package main

import (
	"go/ast"
	"go/token"
	"regexp"
	"strings"
)

// reConvert are calls that only convert a value.
var reConvert = regexp.MustCompile(`^(String|StringMap|ToStringMap|To|Map|Merge|append|make|URLEncode|IgnoreAWS|IgnoreSystem|Slice|Value|Pointer)$`)

// Answers in the tags_at_create column.
const (
	Request           = "request"
	After             = "after"
	PartitionFallback = "partition-fallback"
	Unknown           = "unknown"
)

// result is the tool's answer for one Terraform resource.
type result struct {
	Answer   string
	Evidence string
}

// hit is one signal found in a create function.
type hit struct {
	pos  token.Pos
	what string
}

// signals are what a scan of a create function (and the helpers it calls)
// found.
type signals struct {
	req       []hit // tags or labels placed in the create request
	after     []hit // a separate tagging or labelling call
	partition []hit // retry without tags where the partition lacks tag-on-create
}

// rules says, for one provider, which calls and expressions are signals.
type rules struct {
	// tagsIn reports a call whose value is the resource's tags (AWS getTagsIn);
	// where that value goes decides request or after. Nil when unused.
	tagsIn func(c *ast.CallExpr) bool
	// reqExpr reports an expression that by itself places tags or labels in
	// a create request (e.g. Azure `Tags:` or Google obj["labels"] =).
	reqExpr func(n ast.Node, stack []ast.Node) (string, bool)
	// afterCall reports a call that tags or labels an existing resource.
	afterCall func(c *ast.CallExpr) (string, bool)
	// afterLit reports a string literal that names a tagging call (a URL).
	afterLit func(s string) bool
	// partition reports the tag-on-create fallback check.
	partition func(name string) bool
	// follow reports a same-package callee whose body is scanned too.
	follow func(name string) bool
}

// scanFunc scans body, following same-package callees depth levels deep.
func scanFunc(p *pkg, body ast.Node, r *rules, sig *signals, depth int, visited map[string]bool) {
	tagVars := map[string]bool{}
	walkStack(body, func(n ast.Node, stack []ast.Node) {
		if r.reqExpr != nil {
			if what, ok := r.reqExpr(n, stack); ok {
				sig.req = append(sig.req, hit{n.Pos(), what})
			}
		}
		switch n := n.(type) {
		case *ast.BasicLit:
			if s, ok := strLit(n); ok && r.afterLit != nil && r.afterLit(s) {
				sig.after = append(sig.after, hit{n.Pos(), "URL " + s})
			}
		case *ast.Ident:
			if tagVars[n.Name] {
				if isAssignLHS(n, stack) {
					return
				}
				if where, ok := sinkOf(n, stack, r); ok {
					if where == "request" {
						sig.req = append(sig.req, hit{n.Pos(), n.Name + " (from tags) in the create request"})
					}
				}
			}
		case *ast.CallExpr:
			name := calleeName(n)
			if r.tagsIn != nil && r.tagsIn(n) {
				where, ok := sinkOf(n, stack, r)
				switch {
				case ok && where == "request":
					sig.req = append(sig.req, hit{n.Pos(), name + " in the create request"})
				case ok && where != "":
					tagVars[where] = true
				}
			}
			if r.afterCall != nil {
				if what, ok := r.afterCall(n); ok {
					sig.after = append(sig.after, hit{n.Pos(), what})
				}
			}
			if r.partition != nil && r.partition(name) {
				sig.partition = append(sig.partition, hit{n.Pos(), name})
			}
			if depth > 0 && r.follow != nil {
				if id, ok := n.Fun.(*ast.Ident); ok && !visited[id.Name] && r.follow(id.Name) {
					if fd := p.funcs[id.Name]; fd != nil && fd.Body != nil {
						visited[id.Name] = true
						scanFunc(p, fd.Body, r, sig, depth-1, visited)
					}
				}
			}
		}
	})
}

// isAssignLHS reports whether id is on the left of its assignment.
func isAssignLHS(id *ast.Ident, stack []ast.Node) bool {
	if len(stack) == 0 {
		return false
	}
	as, ok := stack[len(stack)-1].(*ast.AssignStmt)
	if !ok {
		return false
	}
	for _, l := range as.Lhs {
		if l == ast.Expr(id) {
			return true
		}
	}
	return false
}

// sinkOf follows a tags value (a getTagsIn call or a variable holding one)
// up to where it goes: "request" when it is a field of a composite literal
// or assigned to a field (input.Tags = ...); the variable's name when it is
// assigned to a local variable; "" when it is an argument of a tagging call
// or goes nowhere recognisable.
func sinkOf(n ast.Node, stack []ast.Node, r *rules) (string, bool) {
	child := n
	for i := len(stack) - 1; i >= 0; i-- {
		switch a := stack[i].(type) {
		case *ast.KeyValueExpr:
			if a.Value == child {
				return "request", true
			}
			return "", false
		case *ast.AssignStmt:
			for j, rhs := range a.Rhs {
				if rhs != child {
					continue
				}
				lhs := a.Lhs[0]
				if len(a.Lhs) == len(a.Rhs) {
					lhs = a.Lhs[j]
				}
				switch l := lhs.(type) {
				case *ast.SelectorExpr, *ast.IndexExpr:
					return "request", true
				case *ast.Ident:
					return l.Name, true
				}
			}
			return "", false
		case *ast.ValueSpec:
			for j, v := range a.Values {
				if v == child && j < len(a.Names) {
					return a.Names[j].Name, true
				}
			}
			return "", false
		case *ast.CallExpr:
			if a.Fun == child {
				break // getTagsIn(ctx).Method(): follow the result
			}
			if r.afterCall != nil {
				if _, ok := r.afterCall(a); ok {
					return "", true
				}
			}
			name := calleeName(a)
			switch {
			case name == "len" || name == "IsEmpty":
				return "", false
			case strings.Contains(strings.ToLower(name), "tag") || reConvert.MatchString(name):
				// a conversion (svcTags(getTagsIn(ctx)), aws.String(...)): follow its result
			default:
				// passed to a helper that builds or sends the create request
				return "request", true
			}
		case ast.Stmt:
			return "", false
		}
		child = stack[i]
	}
	return "", false
}

// decide turns signals into an answer. hasTransparentTags is AWS's @Tags
// (the tagging interceptor tags after a Create that sends no tags).
func decide(t *tree, sig *signals, createPos token.Pos, hasTransparentTags bool, version string) result {
	ev := func(h hit, extra string) string {
		s := t.pos(h.pos) + " " + h.what
		if extra != "" {
			s += "; " + extra
		}
		return s + " @" + version
	}
	switch {
	case len(sig.partition) > 0 && len(sig.req) > 0:
		return result{PartitionFallback, ev(sig.partition[0], "tags in request at "+t.pos(sig.req[0].pos)+", retried without them and tagged after where the partition lacks tag-on-create")}
	case len(sig.req) > 0 && len(sig.after) > 0:
		return result{After, ev(sig.after[0], "a separate tagging call in Create besides tags in request at "+t.pos(sig.req[0].pos)+" (after in some configurations)")}
	case len(sig.req) > 0:
		return result{Request, ev(sig.req[0], "")}
	case len(sig.after) > 0:
		return result{After, ev(sig.after[0], "tags applied after the create call")}
	case hasTransparentTags:
		return result{After, t.pos(createPos) + " Create sends no tags; the transparent tagging interceptor (@Tags) tags after Create @" + version}
	}
	return result{Unknown, "unknown: no tags or labels found in the create function " + t.pos(createPos) + " @" + version}
}

var reFollowSkip = regexp.MustCompile(`(?i)(read|find|wait|status|flatten|retry|sweep|tags|labels|^log|^sdkdiag|^diag|^fmt)`)

func followDefault(name string) bool { return !reFollowSkip.MatchString(name) }
