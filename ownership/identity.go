package ownership

import (
	"strings"

	"github.com/intentjournal/intentjournal/journal"
)

// Holder returns the Lease holderIdentity of owner: "<replica>/<epoch>".
func Holder(owner journal.Owner) string { return owner.Replica + "/" + owner.Epoch }

// ParseHolder splits a holderIdentity written by Holder. ok is false for
// an identity of another form (e.g. one written by client-go's default
// "<host>_<uuid>"), whose epoch is then unknown.
func ParseHolder(id string) (replica, epoch string, ok bool) {
	i := strings.LastIndexByte(id, '/')
	if i <= 0 || i == len(id)-1 {
		return "", "", false
	}
	return id[:i], id[i+1:], true
}
