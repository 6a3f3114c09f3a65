package v1

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Options types travel as URL query parameters named by their JSON fields:
// ToQuery gives the parameters a client sends (zero values left out, like
// client-go), FromQuery reads them on the server. Parsing follows the
// apiserver: the first value of a parameter counts; a boolean is false only
// when absent, "false" (any case) or "0"; a malformed number is an error
// naming the parameter, which the apiserver answers with 400 BadRequest.
// Enumerated values (fieldValidation, propagationPolicy, ...) are read as
// given; rejecting unknown ones is validation's job.

// ToQuery returns the query parameters of o.
func (o *ListOptions) ToQuery() url.Values {
	q := url.Values{}
	if o == nil {
		return q
	}
	putString(q, "labelSelector", o.LabelSelector)
	putString(q, "fieldSelector", o.FieldSelector)
	putBool(q, "watch", o.Watch)
	putBool(q, "allowWatchBookmarks", o.AllowWatchBookmarks)
	putString(q, "resourceVersion", o.ResourceVersion)
	putString(q, "resourceVersionMatch", string(o.ResourceVersionMatch))
	putInt64Ptr(q, "timeoutSeconds", o.TimeoutSeconds)
	putInt64(q, "limit", o.Limit)
	putString(q, "continue", o.Continue)
	putBoolPtr(q, "sendInitialEvents", o.SendInitialEvents)
	return q
}

// FromQuery sets every field of o from q; absent parameters give zero
// values. TypeMeta is kept. On error o is unchanged.
func (o *ListOptions) FromQuery(q url.Values) error {
	timeout, errTimeout := queryInt64Ptr(q, "timeoutSeconds")
	limit, errLimit := queryInt64(q, "limit")
	if err := errors.Join(errTimeout, errLimit); err != nil {
		return err
	}
	*o = ListOptions{
		TypeMeta:             o.TypeMeta,
		LabelSelector:        queryString(q, "labelSelector"),
		FieldSelector:        queryString(q, "fieldSelector"),
		Watch:                queryBool(q, "watch"),
		AllowWatchBookmarks:  queryBool(q, "allowWatchBookmarks"),
		ResourceVersion:      queryString(q, "resourceVersion"),
		ResourceVersionMatch: ResourceVersionMatch(queryString(q, "resourceVersionMatch")),
		TimeoutSeconds:       timeout,
		Limit:                limit,
		Continue:             queryString(q, "continue"),
		SendInitialEvents:    queryBoolPtr(q, "sendInitialEvents"),
	}
	return nil
}

// ToQuery returns the query parameters of o.
func (o *GetOptions) ToQuery() url.Values {
	q := url.Values{}
	if o == nil {
		return q
	}
	putString(q, "resourceVersion", o.ResourceVersion)
	return q
}

// FromQuery sets every field of o from q; TypeMeta is kept.
func (o *GetOptions) FromQuery(q url.Values) error {
	*o = GetOptions{TypeMeta: o.TypeMeta, ResourceVersion: queryString(q, "resourceVersion")}
	return nil
}

// ToQuery returns the query parameters of o. Preconditions have no query
// form; they travel in the request body only.
func (o *DeleteOptions) ToQuery() url.Values {
	q := url.Values{}
	if o == nil {
		return q
	}
	putInt64Ptr(q, "gracePeriodSeconds", o.GracePeriodSeconds)
	putBoolPtr(q, "orphanDependents", o.OrphanDependents)
	if o.PropagationPolicy != nil {
		q.Set("propagationPolicy", string(*o.PropagationPolicy))
	}
	putStrings(q, "dryRun", o.DryRun)
	putBoolPtr(q, "ignoreStoreReadErrorWithClusterBreakingPotential", o.IgnoreStoreReadErrorWithClusterBreakingPotential)
	return q
}

// FromQuery sets every field of o but Preconditions from q; TypeMeta and
// Preconditions are kept. On error o is unchanged.
func (o *DeleteOptions) FromQuery(q url.Values) error {
	grace, err := queryInt64Ptr(q, "gracePeriodSeconds")
	if err != nil {
		return err
	}
	var policy *DeletionPropagation
	if vs := q["propagationPolicy"]; len(vs) > 0 {
		p := DeletionPropagation(vs[0])
		policy = &p
	}
	*o = DeleteOptions{
		TypeMeta:           o.TypeMeta,
		GracePeriodSeconds: grace,
		Preconditions:      o.Preconditions,
		OrphanDependents:   queryBoolPtr(q, "orphanDependents"),
		PropagationPolicy:  policy,
		DryRun:             queryStrings(q, "dryRun"),
		IgnoreStoreReadErrorWithClusterBreakingPotential: queryBoolPtr(q, "ignoreStoreReadErrorWithClusterBreakingPotential"),
	}
	return nil
}

// ToQuery returns the query parameters of o.
func (o *CreateOptions) ToQuery() url.Values {
	q := url.Values{}
	if o == nil {
		return q
	}
	putStrings(q, "dryRun", o.DryRun)
	putString(q, "fieldManager", o.FieldManager)
	putString(q, "fieldValidation", o.FieldValidation)
	return q
}

// FromQuery sets every field of o from q; TypeMeta is kept.
func (o *CreateOptions) FromQuery(q url.Values) error {
	*o = CreateOptions{
		TypeMeta:        o.TypeMeta,
		DryRun:          queryStrings(q, "dryRun"),
		FieldManager:    queryString(q, "fieldManager"),
		FieldValidation: queryString(q, "fieldValidation"),
	}
	return nil
}

// ToQuery returns the query parameters of o.
func (o *UpdateOptions) ToQuery() url.Values {
	q := url.Values{}
	if o == nil {
		return q
	}
	putStrings(q, "dryRun", o.DryRun)
	putString(q, "fieldManager", o.FieldManager)
	putString(q, "fieldValidation", o.FieldValidation)
	return q
}

// FromQuery sets every field of o from q; TypeMeta is kept.
func (o *UpdateOptions) FromQuery(q url.Values) error {
	*o = UpdateOptions{
		TypeMeta:        o.TypeMeta,
		DryRun:          queryStrings(q, "dryRun"),
		FieldManager:    queryString(q, "fieldManager"),
		FieldValidation: queryString(q, "fieldValidation"),
	}
	return nil
}

// ToQuery returns the query parameters of o.
func (o *PatchOptions) ToQuery() url.Values {
	q := url.Values{}
	if o == nil {
		return q
	}
	putStrings(q, "dryRun", o.DryRun)
	putBoolPtr(q, "force", o.Force)
	putString(q, "fieldManager", o.FieldManager)
	putString(q, "fieldValidation", o.FieldValidation)
	return q
}

// FromQuery sets every field of o from q; TypeMeta is kept.
func (o *PatchOptions) FromQuery(q url.Values) error {
	*o = PatchOptions{
		TypeMeta:        o.TypeMeta,
		DryRun:          queryStrings(q, "dryRun"),
		Force:           queryBoolPtr(q, "force"),
		FieldManager:    queryString(q, "fieldManager"),
		FieldValidation: queryString(q, "fieldValidation"),
	}
	return nil
}

// ToQuery returns the query parameters of o.
func (o *TableOptions) ToQuery() url.Values {
	q := url.Values{}
	if o == nil {
		return q
	}
	putString(q, "includeObject", string(o.IncludeObject))
	return q
}

// FromQuery sets IncludeObject from q; TypeMeta and NoHeaders are kept.
func (o *TableOptions) FromQuery(q url.Values) error {
	o.IncludeObject = IncludeObjectPolicy(queryString(q, "includeObject"))
	return nil
}

func putString(q url.Values, name, v string) {
	if v != "" {
		q.Set(name, v)
	}
}

func putBool(q url.Values, name string, v bool) {
	if v {
		q.Set(name, "true")
	}
}

func putBoolPtr(q url.Values, name string, v *bool) {
	if v != nil {
		q.Set(name, strconv.FormatBool(*v))
	}
}

func putInt64(q url.Values, name string, v int64) {
	if v != 0 {
		q.Set(name, strconv.FormatInt(v, 10))
	}
}

func putInt64Ptr(q url.Values, name string, v *int64) {
	if v != nil {
		q.Set(name, strconv.FormatInt(*v, 10))
	}
}

func putStrings(q url.Values, name string, vs []string) {
	for _, v := range vs {
		q.Add(name, v)
	}
}

func queryString(q url.Values, name string) string {
	if vs := q[name]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

func queryStrings(q url.Values, name string) []string {
	if vs := q[name]; len(vs) > 0 {
		return append([]string(nil), vs...)
	}
	return nil
}

// parseQueryBool is the apiserver's reading of a present boolean parameter:
// only "0" and "false" in any case are false; "?watch" alone is true.
func parseQueryBool(s string) bool {
	return s != "0" && !strings.EqualFold(s, "false")
}

func queryBool(q url.Values, name string) bool {
	vs := q[name]
	return len(vs) > 0 && parseQueryBool(vs[0])
}

func queryBoolPtr(q url.Values, name string) *bool {
	vs := q[name]
	if len(vs) == 0 {
		return nil
	}
	b := parseQueryBool(vs[0])
	return &b
}

func queryInt64(q url.Values, name string) (int64, error) {
	p, err := queryInt64Ptr(q, name)
	if p == nil {
		return 0, err
	}
	return *p, nil
}

func queryInt64Ptr(q url.Values, name string) (*int64, error) {
	vs := q[name]
	if len(vs) == 0 {
		return nil, nil
	}
	n, err := strconv.ParseInt(vs[0], 10, 64)
	if err != nil {
		if ne, ok := errors.AsType[*strconv.NumError](err); ok {
			err = ne.Err
		}
		return nil, fmt.Errorf("invalid query parameter %s=%q: %w", name, vs[0], err)
	}
	return &n, nil
}
