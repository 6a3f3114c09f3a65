package etcd3

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/protobuf"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/storage"
)

// DefaultRequestTimeout bounds every etcd call whose context has no earlier
// deadline, so that an unreachable etcd gives ErrCodeUnreachable instead of
// a hang.
const DefaultRequestTimeout = 10 * time.Second

// Codec turns the objects of one resource into the bytes stored in etcd and
// back. The runtime JSON codec of a scheme satisfies it through a small
// adapter; JSONCodec is the plain encoding/json implementation.
type Codec interface {
	Encode(obj runtime.Object) ([]byte, error)
	Decode(data []byte) (runtime.Object, error)
}

// JSONCodec encodes with encoding/json and decodes into New().
type JSONCodec struct {
	New func() runtime.Object
}

var _ Codec = JSONCodec{}

// Encode implements Codec.
func (c JSONCodec) Encode(obj runtime.Object) ([]byte, error) { return json.Marshal(obj) }

// Decode implements Codec.
func (c JSONCodec) Decode(data []byte) (runtime.Object, error) {
	obj := c.New()
	if err := json.Unmarshal(data, obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// ProtobufCodec stores objects in Kubernetes' protobuf envelope, as
// Kubernetes stores its built-in resources: a pod takes about half the
// bytes of its JSON and decodes about three times faster, which is what
// etcd writes and the watch cache decodes for every change. Objects
// whose type has no protobuf form are stored as JSON, and so is every
// object when WriteJSON says so; either form decodes, the envelope's
// prefix tells them apart, so servers of both settings share an etcd.
type ProtobufCodec struct {
	Serializer *protobuf.Serializer
	New        func() runtime.Object
	// WriteJSON writes JSON (--storage-media-type application/json).
	WriteJSON bool
}

var _ Codec = ProtobufCodec{}

// Encode implements Codec.
func (c ProtobufCodec) Encode(obj runtime.Object) ([]byte, error) {
	if c.WriteJSON || !c.Serializer.Supports(obj) {
		return json.Marshal(obj)
	}
	return c.Serializer.Marshal(obj)
}

// Decode implements Codec.
func (c ProtobufCodec) Decode(data []byte) (runtime.Object, error) {
	if !protobuf.IsEnveloped(data) {
		return JSONCodec{New: c.New}.Decode(data)
	}
	obj, _, err := c.Serializer.Decode(data, nil, c.New())
	return obj, err
}

// RuntimeCodec adapts a runtime Encoder and Decoder, such as the scheme's
// JSON Serializer (runtime.NewSerializer), to Codec. Stored data decodes
// into New(), the Go type of the resource.
type RuntimeCodec struct {
	Encoder runtime.Encoder
	Decoder runtime.Decoder
	New     func() runtime.Object
}

var _ Codec = RuntimeCodec{}

// Encode implements Codec.
func (c RuntimeCodec) Encode(obj runtime.Object) ([]byte, error) {
	return runtime.Encode(c.Encoder, obj)
}

// Decode implements Codec. Unknown fields in stored data (written by a
// newer server) are tolerated: the object is decoded anyway.
func (c RuntimeCodec) Decode(data []byte) (runtime.Object, error) {
	into := c.New()
	if err := runtime.DecodeInto(c.Decoder, data, into); err != nil && !runtime.IsStrictDecodingError(err) {
		return nil, err
	}
	return into, nil
}

// Config says where and how one resource is stored.
type Config struct {
	// Client talks to etcd. Required.
	Client *clientv3.Client
	// Prefix is prepended to every key ("/registry"): the key
	// "/pods/default/web-0" is stored at "/registry/pods/default/web-0".
	Prefix string
	// Codec encodes the objects; JSONCodec{New: NewFunc} when nil.
	Codec Codec
	// NewFunc returns an empty object of the resource. Required.
	NewFunc func() runtime.Object
	// GroupResource names the resource in messages.
	GroupResource schema.GroupResource
	// RequestTimeout bounds each call (DefaultRequestTimeout when zero).
	RequestTimeout time.Duration
	// WatchProbeInterval is how long a watch may see nothing from etcd before
	// it checks that etcd still answers (5 s when zero); a watch on an etcd
	// that no longer answers ends with an ERROR event.
	WatchProbeInterval time.Duration
	// BookmarkInterval is how often a watch with ProgressNotify asks etcd for
	// a progress notification, which becomes a BOOKMARK event (1 s when zero).
	BookmarkInterval time.Duration
	// LeaseTTL, when positive, makes every object expire that long after
	// its last write, through etcd leases shared by the writes of a short
	// window (events, --event-ttl). Zero keeps objects until deleted.
	LeaseTTL time.Duration
}

// store implements storage.Interface on etcd.
type store struct {
	client         *clientv3.Client
	prefix         string
	codec          Codec
	newFunc        func() runtime.Object
	groupResource  schema.GroupResource
	timeout        time.Duration
	probeInterval  time.Duration
	bookmarkPeriod time.Duration
	// leases are the leases of expiring objects, nil when they do not.
	leases *leaseManager
}

var _ storage.Interface = (*store)(nil)

// New returns a storage.Interface for one resource.
func New(cfg Config) (storage.Interface, error) {
	if cfg.Client == nil {
		return nil, errors.New("etcd3: a client is required")
	}
	if cfg.NewFunc == nil {
		return nil, errors.New("etcd3: NewFunc is required")
	}
	s := &store{
		client:         cfg.Client,
		prefix:         strings.TrimSuffix(cfg.Prefix, "/"),
		codec:          cfg.Codec,
		newFunc:        cfg.NewFunc,
		groupResource:  cfg.GroupResource,
		timeout:        cfg.RequestTimeout,
		probeInterval:  cfg.WatchProbeInterval,
		bookmarkPeriod: cfg.BookmarkInterval,
	}
	if s.codec == nil {
		s.codec = JSONCodec{New: cfg.NewFunc}
	}
	if cfg.LeaseTTL > 0 {
		s.leases = newLeaseManager(cfg.Client, cfg.LeaseTTL)
	}
	if s.timeout <= 0 {
		s.timeout = DefaultRequestTimeout
	}
	if s.probeInterval <= 0 {
		s.probeInterval = 5 * time.Second
	}
	if s.bookmarkPeriod <= 0 {
		s.bookmarkPeriod = time.Second
	}
	return s, nil
}

// objState is what etcd holds at a key: the decoded object (with its
// resourceVersion), the stored bytes and the mod revision.
type objState struct {
	obj    runtime.Object
	data   []byte
	rev    int64
	exists bool
	// current says the state was read from etcd, not taken from a cache.
	current bool
}

// etcdKey turns a storage key into the etcd key, refusing keys that would
// climb out of the prefix.
func (s *store) etcdKey(key string) (string, error) {
	trimmed := strings.TrimSuffix(key, "/")
	if trimmed == "" || trimmed == "." || !strings.HasPrefix(trimmed, "/") || path.Clean(trimmed) != trimmed {
		return "", storage.NewError(storage.ErrCodeInvalidObj, key, 0, fmt.Sprintf("invalid key %q", key))
	}
	return s.prefix + key, nil
}

func (s *store) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.timeout)
}

// Create implements storage.Interface.
func (s *store) Create(ctx context.Context, key string, obj runtime.Object) (runtime.Object, error) {
	k, err := s.etcdKey(key)
	if err != nil {
		return nil, err
	}
	m, err := accessor(obj)
	if err != nil {
		return nil, storage.NewError(storage.ErrCodeInvalidObj, key, 0, err.Error())
	}
	if m.GetResourceVersion() != "" {
		return nil, storage.NewError(storage.ErrCodeInvalidObj, key, 0, "resourceVersion should not be set on objects to be created")
	}
	data, err := s.codec.Encode(obj)
	if err != nil {
		return nil, &storage.StorageError{Code: storage.ErrCodeInvalidObj, Key: key, Detail: "encode object", Err: err}
	}
	ctx, cancel := s.withTimeout(ctx)
	defer cancel()
	var resp *clientv3.TxnResponse
	for retried := false; ; retried = true {
		opts, lease, err := s.putOptions(ctx)
		if err != nil {
			return nil, s.etcdError(key, err)
		}
		resp, err = s.client.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(k), "=", 0)).
			Then(clientv3.OpPut(k, string(data), opts...)).
			Commit()
		if err == nil {
			break
		}
		if retried || !s.leaseLost(err, lease) {
			return nil, s.etcdError(key, err)
		}
	}
	if !resp.Succeeded {
		return nil, storage.NewError(storage.ErrCodeKeyExists, key, 0, "")
	}
	out := obj.DeepCopyObject()
	if err := setResourceVersion(out, resp.Header.Revision); err != nil {
		return nil, storage.NewError(storage.ErrCodeInvalidObj, key, 0, err.Error())
	}
	return out, nil
}

// Get implements storage.Interface.
func (s *store) Get(ctx context.Context, key string, opts storage.GetOptions) (runtime.Object, error) {
	k, err := s.etcdKey(key)
	if err != nil {
		return nil, err
	}
	minRV, err := parseResourceVersion(key, opts.ResourceVersion)
	if err != nil {
		return nil, err
	}
	var getOpts []clientv3.OpOption
	if opts.ResourceVersion == "0" {
		getOpts = append(getOpts, clientv3.WithSerializable())
	}
	ctx, cancel := s.withTimeout(ctx)
	defer cancel()
	resp, err := s.client.Get(ctx, k, getOpts...)
	if err != nil {
		return nil, s.etcdError(key, err)
	}
	if minRV > 0 && resp.Header.Revision < minRV {
		return nil, storage.NewError(storage.ErrCodeTooLargeResourceVersion, key, minRV,
			fmt.Sprintf("Too large resource version: %d, current: %d", minRV, resp.Header.Revision))
	}
	if len(resp.Kvs) == 0 {
		if opts.IgnoreNotFound {
			return s.newFunc(), nil
		}
		return nil, storage.NewError(storage.ErrCodeKeyNotFound, key, 0, "")
	}
	return s.decode(key, resp.Kvs[0].Value, resp.Kvs[0].ModRevision)
}

// GuaranteedUpdate implements storage.Interface.
func (s *store) GuaranteedUpdate(ctx context.Context, key string, preconditions *storage.Preconditions, ignoreNotFound bool, tryUpdate storage.UpdateFunc, cachedExisting runtime.Object) (runtime.Object, error) {
	k, err := s.etcdKey(key)
	if err != nil {
		return nil, err
	}
	ctx, cancel := s.withTimeout(ctx)
	defer cancel()

	var st *objState
	if cachedExisting != nil {
		st, err = s.stateFromObject(key, cachedExisting)
	} else {
		st, err = s.read(ctx, key, k)
	}
	if err != nil {
		return nil, err
	}
	for {
		if !st.exists && !ignoreNotFound {
			if !st.current {
				if st, err = s.read(ctx, key, k); err != nil {
					return nil, err
				}
				continue
			}
			return nil, storage.NewError(storage.ErrCodeKeyNotFound, key, 0, "")
		}
		updated, err := s.applyUpdate(key, st, preconditions, tryUpdate)
		if err != nil {
			if !st.current {
				if st, err = s.read(ctx, key, k); err != nil {
					return nil, err
				}
				continue
			}
			return nil, err
		}
		data, err := s.encodeWithoutVersion(updated)
		if err != nil {
			return nil, &storage.StorageError{Code: storage.ErrCodeInvalidObj, Key: key, Detail: "encode object", Err: err}
		}
		if st.exists && bytes.Equal(data, st.data) {
			if !st.current {
				if st, err = s.read(ctx, key, k); err != nil {
					return nil, err
				}
				continue
			}
			return st.obj.DeepCopyObject(), nil
		}
		opts, lease, err := s.putOptions(ctx)
		if err != nil {
			return nil, s.etcdError(key, err)
		}
		resp, err := s.client.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(k), "=", st.rev)).
			Then(clientv3.OpPut(k, string(data), opts...)).
			Else(clientv3.OpGet(k)).
			Commit()
		if err != nil {
			if s.leaseLost(err, lease) {
				continue // the next turn is granted a new lease
			}
			return nil, s.etcdError(key, err)
		}
		if !resp.Succeeded {
			// Someone else wrote first: retry on the state the Else branch read.
			if st, err = s.stateFromRange(key, resp.Responses[0].GetResponseRange()); err != nil {
				return nil, err
			}
			continue
		}
		if err := setResourceVersion(updated, resp.Header.Revision); err != nil {
			return nil, storage.NewError(storage.ErrCodeInvalidObj, key, 0, err.Error())
		}
		return updated, nil
	}
}

// applyUpdate checks the preconditions on st and calls tryUpdate on a copy.
func (s *store) applyUpdate(key string, st *objState, preconditions *storage.Preconditions, tryUpdate storage.UpdateFunc) (runtime.Object, error) {
	var current runtime.Object
	if st.exists {
		current = st.obj.DeepCopyObject()
	}
	if err := preconditions.Check(key, current); err != nil {
		return nil, err
	}
	updated, err := tryUpdate(current)
	if err != nil {
		return nil, err
	}
	if updated == nil {
		return nil, storage.NewError(storage.ErrCodeInvalidObj, key, 0, "the update function returned no object")
	}
	return updated, nil
}

// Delete implements storage.Interface.
func (s *store) Delete(ctx context.Context, key string, preconditions *storage.Preconditions, validate storage.ValidateObjectFunc, cachedExisting runtime.Object) (runtime.Object, error) {
	k, err := s.etcdKey(key)
	if err != nil {
		return nil, err
	}
	ctx, cancel := s.withTimeout(ctx)
	defer cancel()

	var st *objState
	if cachedExisting != nil {
		st, err = s.stateFromObject(key, cachedExisting)
	} else {
		st, err = s.read(ctx, key, k)
	}
	if err != nil {
		return nil, err
	}
	for {
		if !st.exists {
			if !st.current {
				if st, err = s.read(ctx, key, k); err != nil {
					return nil, err
				}
				continue
			}
			return nil, storage.NewError(storage.ErrCodeKeyNotFound, key, 0, "")
		}
		err := preconditions.Check(key, st.obj)
		if err == nil && validate != nil {
			err = validate(ctx, st.obj.DeepCopyObject())
		}
		if err != nil {
			if !st.current {
				if st, err = s.read(ctx, key, k); err != nil {
					return nil, err
				}
				continue
			}
			return nil, err
		}
		resp, err := s.client.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(k), "=", st.rev)).
			Then(clientv3.OpDelete(k)).
			Else(clientv3.OpGet(k)).
			Commit()
		if err != nil {
			return nil, s.etcdError(key, err)
		}
		if !resp.Succeeded {
			if st, err = s.stateFromRange(key, resp.Responses[0].GetResponseRange()); err != nil {
				return nil, err
			}
			continue
		}
		// The last state carries the revision of its deletion, as a watch
		// DELETED event does.
		out := st.obj.DeepCopyObject()
		if err := setResourceVersion(out, resp.Header.Revision); err != nil {
			return nil, storage.NewError(storage.ErrCodeInvalidObj, key, 0, err.Error())
		}
		return out, nil
	}
}

// CurrentResourceVersion implements storage.Interface: a quorum read of a
// key that holds nothing returns the store's revision in its header.
func (s *store) CurrentResourceVersion(ctx context.Context) (uint64, error) {
	ctx, cancel := s.withTimeout(ctx)
	defer cancel()
	resp, err := s.client.Get(ctx, s.prefix+"/\x00", clientv3.WithCountOnly())
	if err != nil {
		return 0, s.etcdError("", err)
	}
	return uint64(resp.Header.Revision), nil
}

// read fetches the state at key with a quorum read.
func (s *store) read(ctx context.Context, key, k string) (*objState, error) {
	resp, err := s.client.Get(ctx, k)
	if err != nil {
		return nil, s.etcdError(key, err)
	}
	return s.stateFromKVs(key, resp.Kvs)
}

func (s *store) stateFromRange(key string, r *etcdserverpb.RangeResponse) (*objState, error) {
	if r == nil {
		return &objState{current: true}, nil
	}
	return s.stateFromKVs(key, r.Kvs)
}

func (s *store) stateFromKVs(key string, kvs []*mvccpb.KeyValue) (*objState, error) {
	if len(kvs) == 0 {
		return &objState{current: true}, nil
	}
	obj, err := s.decode(key, kvs[0].Value, kvs[0].ModRevision)
	if err != nil {
		return nil, err
	}
	return &objState{obj: obj, data: kvs[0].Value, rev: kvs[0].ModRevision, exists: true, current: true}, nil
}

// stateFromObject builds a state from a cached object without touching it;
// the transaction verifies that it is still current.
func (s *store) stateFromObject(key string, obj runtime.Object) (*objState, error) {
	m, err := accessor(obj)
	if err != nil {
		return nil, storage.NewError(storage.ErrCodeInvalidObj, key, 0, err.Error())
	}
	rev, err := strconv.ParseInt(m.GetResourceVersion(), 10, 64)
	if err != nil || rev <= 0 {
		return nil, storage.NewError(storage.ErrCodeInvalidObj, key, 0,
			fmt.Sprintf("cached object has an invalid resourceVersion %q", m.GetResourceVersion()))
	}
	data, err := s.encodeWithoutVersion(obj.DeepCopyObject())
	if err != nil {
		return nil, &storage.StorageError{Code: storage.ErrCodeInvalidObj, Key: key, Detail: "encode cached object", Err: err}
	}
	return &objState{obj: obj, data: data, rev: rev, exists: true}, nil
}

// encodeWithoutVersion clears the resourceVersion of obj, which the caller
// owns, and encodes it: the version is the key's mod revision, not data.
func (s *store) encodeWithoutVersion(obj runtime.Object) ([]byte, error) {
	m, err := accessor(obj)
	if err != nil {
		return nil, err
	}
	m.SetResourceVersion("")
	return s.codec.Encode(obj)
}

// decode turns stored bytes into an object whose resourceVersion is rev.
func (s *store) decode(key string, data []byte, rev int64) (runtime.Object, error) {
	obj, err := s.codec.Decode(data)
	if err != nil {
		return nil, &storage.StorageError{Code: storage.ErrCodeInvalidObj, Key: key, ResourceVersion: rev, Detail: "decode stored object", Err: err}
	}
	if err := setResourceVersion(obj, rev); err != nil {
		return nil, storage.NewError(storage.ErrCodeInvalidObj, key, rev, err.Error())
	}
	return obj, nil
}

// etcdError classifies an etcd client error: a compacted revision is
// Expired, anything else means etcd did not serve the request.
func (s *store) etcdError(key string, err error) error {
	switch {
	case isCompacted(err):
		return &storage.StorageError{Code: storage.ErrCodeExpired, Key: key, Detail: expiredListMessage, Err: err}
	case isFutureRevision(err):
		return &storage.StorageError{Code: storage.ErrCodeTooLargeResourceVersion, Key: key, Err: err}
	default:
		return storage.NewUnreachableError(key, err)
	}
}

func isCompacted(err error) bool {
	return errors.Is(err, rpctypes.ErrCompacted) || errors.Is(err, rpctypes.ErrGRPCCompacted) ||
		rpctypes.ErrorDesc(err) == rpctypes.ErrCompacted.Error()
}

func isFutureRevision(err error) bool {
	return errors.Is(err, rpctypes.ErrFutureRev) || errors.Is(err, rpctypes.ErrGRPCFutureRev) ||
		rpctypes.ErrorDesc(err) == rpctypes.ErrFutureRev.Error()
}

func accessor(obj runtime.Object) (metav1.Object, error) {
	switch m := obj.(type) {
	case metav1.Object:
		return m, nil
	case metav1.ObjectMetaAccessor:
		return m.GetObjectMeta(), nil
	}
	return nil, fmt.Errorf("%T has no object metadata", obj)
}

func setResourceVersion(obj runtime.Object, rev int64) error {
	m, err := accessor(obj)
	if err != nil {
		return err
	}
	m.SetResourceVersion(strconv.FormatInt(rev, 10))
	return nil
}

// parseResourceVersion parses "" and "0" as 0 and "N" as N.
func parseResourceVersion(key, rv string) (int64, error) {
	if rv == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil || n < 0 {
		return 0, storage.NewError(storage.ErrCodeInvalidObj, key, 0, fmt.Sprintf("invalid resource version %q", rv))
	}
	return n, nil
}
