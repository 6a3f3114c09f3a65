package etcd3

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/storage"
)

// The messages of 410 Expired answers, as Kubernetes words them.
const (
	expiredListMessage  = "The resourceVersion for the provided list is too old."
	expiredWatchMessage = "The resourceVersion for the provided watch is too old."
	// InconsistentContinueMessage answers a continue token whose revision
	// was compacted; the Status then carries a token that resumes the list
	// at the latest revision.
	InconsistentContinueMessage = "The provided continue parameter is too old to display a consistent list result. " +
		"You can start a new list without the continue parameter, or use the continue token in this response to " +
		"retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - " +
		"objects that were created, modified, or deleted between the time the first chunk was returned and now may " +
		"show up in the list."
)

// maxPageSize bounds one etcd range while a selective predicate keeps
// reading pages to fill a limit.
const maxPageSize = 10000

// continueToken is the decoded form of a continue parameter, the same JSON
// as Kubernetes' so that tokens look familiar: {"v":"meta.k8s.io/v1",
// "rv":N,"start":"key relative to the listed prefix"}. rv -1 means "at the
// latest revision" (the token handed out with an inconsistent-continue 410).
type continueToken struct {
	APIVersion      string `json:"v"`
	ResourceVersion int64  `json:"rv"`
	StartKey        string `json:"start"`
}

const continueAPIVersion = "meta.k8s.io/v1"

// encodeContinue returns the token that resumes a list of keyPrefix at key.
func encodeContinue(key, keyPrefix string, rev int64) (string, error) {
	rel, ok := strings.CutPrefix(key, keyPrefix)
	if !ok || rel == "" {
		return "", fmt.Errorf("encode continue: key %q is not under %q", key, keyPrefix)
	}
	out, err := json.Marshal(continueToken{APIVersion: continueAPIVersion, ResourceVersion: rev, StartKey: rel})
	if err != nil {
		return "", fmt.Errorf("encode continue: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(out), nil
}

// decodeContinue returns the etcd key a continue token starts at and the
// revision it pins (-1: latest).
func decodeContinue(token, keyPrefix string) (string, int64, error) {
	data, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return "", 0, fmt.Errorf("continue key is not valid: %w", err)
	}
	var c continueToken
	if err := json.Unmarshal(data, &c); err != nil {
		return "", 0, fmt.Errorf("continue key is not valid: %w", err)
	}
	if c.APIVersion != continueAPIVersion {
		return "", 0, fmt.Errorf("continue key is not valid: server does not recognize this encoded version %q", c.APIVersion)
	}
	if c.ResourceVersion == 0 || c.ResourceVersion < -1 {
		return "", 0, errors.New("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
	}
	if c.StartKey == "" {
		return "", 0, errors.New("continue key is not valid: encoded start key empty (version meta.k8s.io/v1)")
	}
	// The start key must stay below the prefix: no "..", no "//".
	rooted := c.StartKey
	if !strings.HasPrefix(rooted, "/") {
		rooted = "/" + rooted
	}
	if path.Clean(rooted) != rooted {
		return "", 0, fmt.Errorf("continue key is not valid: %s", c.StartKey)
	}
	return keyPrefix + c.StartKey, c.ResourceVersion, nil
}

// GetList implements storage.Interface.
func (s *store) GetList(ctx context.Context, key string, opts storage.ListOptions) (*storage.List, error) {
	k, err := s.etcdKey(key)
	if err != nil {
		return nil, err
	}
	pred := opts.Predicate
	keyPrefix := k
	if opts.Recursive && !strings.HasSuffix(keyPrefix, "/") {
		keyPrefix += "/"
	}
	rangeEnd := clientv3.GetPrefixRangeEnd(keyPrefix)
	if !opts.Recursive {
		rangeEnd = ""
	}

	minRV, err := parseResourceVersion(key, opts.ResourceVersion)
	if err != nil {
		return nil, err
	}
	startKey := keyPrefix
	var readRev int64 // 0: the latest revision
	serializable := opts.ResourceVersion == "0"
	paging := false
	switch {
	case pred.Continue != "":
		if !opts.Recursive {
			return nil, storage.NewError(storage.ErrCodeInvalidContinue, key, 0, "continue is only valid for a list of a collection")
		}
		if opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
			return nil, storage.NewError(storage.ErrCodeInvalidContinue, key, 0, "specifying resource version is not allowed when using continue")
		}
		from, rev, err := decodeContinue(pred.Continue, keyPrefix)
		if err != nil {
			return nil, &storage.StorageError{Code: storage.ErrCodeInvalidContinue, Key: key, Detail: err.Error()}
		}
		startKey, paging, serializable = from, true, false
		if rev > 0 {
			readRev = rev
		}
	case minRV > 0:
		exact := opts.ResourceVersionMatch == metav1.ResourceVersionMatchExact ||
			// A paged list at an old revision reads that revision, as Kubernetes
			// does when resourceVersionMatch is unset.
			(opts.ResourceVersionMatch == "" && pred.Limit > 0)
		if exact {
			readRev = minRV
		}
	case opts.ResourceVersionMatch == metav1.ResourceVersionMatchExact:
		return nil, storage.NewError(storage.ErrCodeInvalidObj, key, 0, "resourceVersionMatch=Exact needs a resourceVersion other than 0")
	}

	ctx, cancel := s.withTimeout(ctx)
	defer cancel()

	limit := pred.Limit
	pageSize := limit
	list := &storage.List{}
	var lastKey []byte
	hasMore := false
	for {
		getOpts := []clientv3.OpOption{}
		if rangeEnd != "" {
			getOpts = append(getOpts, clientv3.WithRange(rangeEnd))
		}
		if pageSize > 0 {
			getOpts = append(getOpts, clientv3.WithLimit(pageSize))
		}
		if readRev > 0 {
			getOpts = append(getOpts, clientv3.WithRev(readRev))
		} else if serializable {
			getOpts = append(getOpts, clientv3.WithSerializable())
		}
		resp, err := s.client.Get(ctx, startKey, getOpts...)
		if err != nil {
			if paging && isCompacted(err) {
				return nil, s.inconsistentContinue(key, startKey, keyPrefix, readRev, err)
			}
			return nil, s.etcdError(key, err)
		}
		if readRev == 0 {
			readRev = resp.Header.Revision
			if minRV > 0 && readRev < minRV {
				return nil, storage.NewError(storage.ErrCodeTooLargeResourceVersion, key, minRV,
					fmt.Sprintf("Too large resource version: %d, current: %d", minRV, readRev))
			}
		}
		consumed := 0
		full := false
		for _, kv := range resp.Kvs {
			if limit > 0 && int64(len(list.Items)) == limit {
				full = true
				break
			}
			consumed++
			lastKey = kv.Key
			obj, err := s.decode(key, kv.Value, kv.ModRevision)
			if err != nil {
				return nil, err
			}
			ok, err := pred.Matches(obj)
			if err != nil {
				return nil, &storage.StorageError{Code: storage.ErrCodeInvalidObj, Key: string(kv.Key), Detail: "match selectors", Err: err}
			}
			if ok {
				list.Items = append(list.Items, obj)
			}
		}
		if full || (limit > 0 && int64(len(list.Items)) == limit) {
			hasMore = full || resp.More
			if hasMore && pred.Empty() {
				remaining := resp.Count - int64(consumed)
				list.RemainingItemCount = &remaining
			}
			break
		}
		if !resp.More || len(resp.Kvs) == 0 {
			break
		}
		// A selective predicate left the page short: read on, in larger pages.
		startKey = string(lastKey) + "\x00"
		if pageSize > 0 {
			pageSize = min(pageSize*2, maxPageSize)
		}
	}
	list.ResourceVersion = uint64(readRev)
	if hasMore {
		token, err := encodeContinue(string(lastKey)+"\x00", keyPrefix, readRev)
		if err != nil {
			return nil, storage.NewError(storage.ErrCodeInvalidObj, key, readRev, err.Error())
		}
		list.Continue = token
	}
	if list.Items == nil {
		list.Items = []runtime.Object{}
	}
	return list, nil
}

// inconsistentContinue is the 410 of a continue token whose revision was
// compacted. Its Err is the *apierrors.StatusError Kubernetes answers, with
// a token in its ListMeta that resumes at the latest revision.
func (s *store) inconsistentContinue(key, startKey, keyPrefix string, rev int64, cause error) error {
	statusErr := apierrors.NewResourceExpired(InconsistentContinueMessage)
	if token, err := encodeContinue(startKey, keyPrefix, -1); err == nil {
		statusErr.ErrStatus.ListMeta.Continue = token
	}
	return &storage.StorageError{
		Code: storage.ErrCodeExpired, Key: key, ResourceVersion: rev,
		Detail: InconsistentContinueMessage,
		Err:    fmt.Errorf("%w (etcd: %v)", statusErr, cause),
	}
}
