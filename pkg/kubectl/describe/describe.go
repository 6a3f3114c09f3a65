package describe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/client/dynamic"
	"kubecore.io/kubecore/pkg/kubectl/restmapper"
)

// Describer prints the page of one object.
type Describer struct {
	dyn    *dynamic.Client
	mapper *restmapper.Mapper
	now    func() time.Time
	// ShowEvents adds the Events section.
	ShowEvents bool
}

// New returns a Describer reading through dyn; now is the clock ages are
// measured against.
func New(dyn *dynamic.Client, mapper *restmapper.Mapper, now func() time.Time) *Describer {
	return &Describer{dyn: dyn, mapper: mapper, now: now, ShowEvents: true}
}

// pageFunc writes the page of one object of a kind.
type pageFunc func(ctx context.Context, d *Describer, w *prefixWriter, obj *dynamic.Unstructured) error

// pages maps the kinds with a page of their own.
func pages() map[schema.GroupKind]pageFunc {
	return map[schema.GroupKind]pageFunc{
		{Kind: "Pod"}:                       describePod,
		{Kind: "Node"}:                      describeNode,
		{Kind: "Namespace"}:                 describeNamespace,
		{Kind: "Service"}:                   describeService,
		{Kind: "ConfigMap"}:                 describeConfigMap,
		{Kind: "Secret"}:                    describeSecret,
		{Group: "apps", Kind: "Deployment"}: describeDeployment,
		{Group: "apps", Kind: "ReplicaSet"}: describeReplicaSet,
	}
}

// Describe returns the page of obj.
func (d *Describer) Describe(ctx context.Context, obj *dynamic.Unstructured) (string, error) {
	var buf bytes.Buffer
	w := newPrefixWriter(&buf)
	page, ok := pages()[obj.GroupVersionKind().GroupKind()]
	if !ok {
		page = describeGeneric
	}
	if err := page(ctx, d, w, obj); err != nil {
		return "", err
	}
	if err := w.flush(); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// convert decodes an object into a typed API struct.
func convert(obj *dynamic.Unstructured, into any) error {
	b, err := json.Marshal(obj.Object)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, into); err != nil {
		return fmt.Errorf("decode %s %s: %w", obj.GetKind(), obj.GetName(), err)
	}
	return nil
}

// list reads every object of a resource in a namespace into a typed list.
func (d *Describer) list(ctx context.Context, gvr schema.GroupVersionResource, ns string, opts metav1.ListOptions, into any) error {
	l, err := d.dyn.Resource(gvr).Namespace(ns).List(ctx, opts)
	if err != nil {
		return err
	}
	return convert(l, into)
}

var eventsGVR = schema.GroupVersionResource{Version: "v1", Resource: "events"}

// writeEvents prints the Events section of the object with this metadata.
func (d *Describer) writeEvents(ctx context.Context, w *prefixWriter, meta metav1.ObjectMeta) {
	if !d.ShowEvents {
		return
	}
	sel := fmt.Sprintf("involvedObject.name=%s,involvedObject.namespace=%s,involvedObject.uid=%s", meta.Name, meta.Namespace, meta.UID)
	var events corev1.EventList
	if err := d.list(ctx, eventsGVR, meta.Namespace, metav1.ListOptions{FieldSelector: sel}, &events); err != nil || len(events.Items) == 0 {
		w.write(level0, "Events:\t<none>\n")
		return
	}
	sort.SliceStable(events.Items, func(i, j int) bool {
		return eventTime(events.Items[i]).Before(eventTime(events.Items[j]))
	})
	w.write(level0, "Events:\n  Type\tReason\tAge\tFrom\tMessage\n")
	w.write(level1, "----\t------\t----\t----\t-------\n")
	now := d.now()
	for _, e := range events.Items {
		var age string
		switch {
		case e.Count > 1:
			age = fmt.Sprintf("%s (x%d over %s)", d.since(now, e.LastTimestamp.Time), e.Count, d.since(now, e.FirstTimestamp.Time))
		case e.FirstTimestamp.IsZero():
			age = d.since(now, e.EventTime.Time)
		default:
			age = d.since(now, e.FirstTimestamp.Time)
		}
		from := e.Source.Component
		if from == "" {
			from = e.ReportingController
		}
		w.write(level1, "%v\t%v\t%s\t%v\t%v\n", e.Type, e.Reason, age, from, trimSpace(e.Message))
	}
}

func eventTime(e corev1.Event) time.Time {
	if !e.LastTimestamp.IsZero() {
		return e.LastTimestamp.Time
	}
	return e.EventTime.Time
}

func (d *Describer) since(now, t time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return humanDuration(now.Sub(t))
}
