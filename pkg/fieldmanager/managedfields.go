package fieldmanager

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// The operations of a managedFields entry and its only fields format.
const (
	OperationApply  = "Apply"
	OperationUpdate = "Update"
	FieldsTypeV1    = "FieldsV1"
)

// Managed is an object's managedFields decoded: each manager's field set
// (keyed by its identity, see managerKey) and when it last changed them.
type Managed struct {
	Fields fieldpath.ManagedFields
	Times  map[string]*metav1.Time
}

func newManaged() *Managed {
	return &Managed{Fields: fieldpath.ManagedFields{}, Times: map[string]*metav1.Time{}}
}

// identity is what tells two managedFields entries apart: the manager's
// name, the operation, the subresource and, for Update, the API version
// (an applier is one manager whatever version it applies in). Its JSON is
// the key of Managed.Fields: the field order is ManagedFieldsEntry's, so
// keys sort as Kubernetes sorts its own identities, which decides the
// order managers are named in a conflict message.
type identity struct {
	Manager     string `json:"manager,omitempty"`
	Operation   string `json:"operation,omitempty"`
	APIVersion  string `json:"apiVersion,omitempty"`
	Subresource string `json:"subresource,omitempty"`
}

func (id identity) key() string {
	if id.Operation == OperationApply {
		id.APIVersion = ""
	}
	b, _ := json.Marshal(id) // a struct of strings always encodes
	return string(b)
}

func parseKey(key string) (identity, error) {
	var id identity
	if err := json.Unmarshal([]byte(key), &id); err != nil {
		return identity{}, fmt.Errorf("manager identity %q: %w", key, err)
	}
	return id, nil
}

// DecodeManagedFields parses entries; any malformed entry (an unknown
// operation or fields type, no apiVersion, fields that are not FieldsV1)
// fails the whole list.
func DecodeManagedFields(entries []metav1.ManagedFieldsEntry) (*Managed, error) {
	m := &Managed{Fields: make(fieldpath.ManagedFields, len(entries)), Times: make(map[string]*metav1.Time, len(entries))}
	for i := range entries {
		e := &entries[i]
		if e.Operation != OperationApply && e.Operation != OperationUpdate {
			return nil, fmt.Errorf("managedFields[%d]: operation must be `Apply` or `Update`", i)
		}
		if e.APIVersion == "" {
			return nil, fmt.Errorf("managedFields[%d]: apiVersion must not be empty", i)
		}
		switch e.FieldsType {
		case FieldsTypeV1:
		case "":
			return nil, fmt.Errorf("managedFields[%d]: missing fieldsType", i)
		default:
			return nil, fmt.Errorf("managedFields[%d]: invalid fieldsType %q", i, e.FieldsType)
		}
		set := fieldpath.NewSet()
		if e.FieldsV1 != nil && len(e.FieldsV1.Raw) > 0 {
			if err := set.FromJSON(bytes.NewReader(e.FieldsV1.Raw)); err != nil {
				return nil, fmt.Errorf("managedFields[%d]: fieldsV1: %w", i, err)
			}
		}
		key := identity{Manager: e.Manager, Operation: e.Operation, APIVersion: e.APIVersion, Subresource: e.Subresource}.key()
		m.Fields[key] = fieldpath.NewVersionedSet(set, fieldpath.APIVersion(e.APIVersion), e.Operation == OperationApply)
		m.Times[key] = e.Time
	}
	return m, nil
}

// EncodeManagedFields writes m as managedFields entries in Kubernetes'
// order: Apply entries before Update ones, then oldest first (by second),
// then by manager, API version and subresource. No managers is nil.
func EncodeManagedFields(m *Managed) ([]metav1.ManagedFieldsEntry, error) {
	if m == nil || len(m.Fields) == 0 {
		return nil, nil
	}
	out := make([]metav1.ManagedFieldsEntry, 0, len(m.Fields))
	for key, vs := range m.Fields {
		id, err := parseKey(key)
		if err != nil {
			return nil, err
		}
		raw, err := encodeFieldsV1(vs.Set())
		if err != nil {
			return nil, fmt.Errorf("encode fields of %s: %w", key, err)
		}
		op := OperationUpdate
		if vs.Applied() {
			op = OperationApply
		}
		out = append(out, metav1.ManagedFieldsEntry{
			Manager:     id.Manager,
			Operation:   op,
			APIVersion:  string(vs.APIVersion()),
			Time:        m.Times[key],
			FieldsType:  FieldsTypeV1,
			FieldsV1:    &metav1.FieldsV1{Raw: raw},
			Subresource: id.Subresource,
		})
	}
	sortEntries(out)
	return out, nil
}

func sortEntries(entries []metav1.ManagedFieldsEntry) {
	seconds := func(t *metav1.Time) int64 {
		if t == nil {
			return 0
		}
		return t.Unix()
	}
	sort.SliceStable(entries, func(i, j int) bool {
		p, q := &entries[i], &entries[j]
		if p.Operation != q.Operation {
			return p.Operation < q.Operation
		}
		if ps, qs := seconds(p.Time), seconds(q.Time); ps != qs {
			return ps < qs
		}
		if p.Manager != q.Manager {
			return p.Manager < q.Manager
		}
		if p.APIVersion != q.APIVersion {
			return p.APIVersion < q.APIVersion
		}
		return p.Subresource < q.Subresource
	})
}

// isReset reports whether a client asked to clear managedFields: an empty
// list, or a list of one empty entry.
func isReset(entries []metav1.ManagedFieldsEntry) bool {
	if entries == nil {
		return false
	}
	switch len(entries) {
	case 0:
		return true
	case 1:
		e := entries[0]
		return e.Manager == "" && e.Operation == "" && e.APIVersion == "" && e.Time == nil &&
			e.FieldsType == "" && e.FieldsV1 == nil && e.Subresource == ""
	}
	return false
}
