package controlplane

import (
	"context"
	"fmt"
	"reflect"

	flowcontrolv1 "kubecore.io/api/flowcontrol/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/apis/flowcontrol/bootstrap"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// builtFlowControl keeps the flowcontrol stores the bootstrap writes.
func (in *Instance) builtFlowControl(rs strategy.Resources) {
	in.flowSchemas = storeOf(rs, "flowschemas")
	in.flowSchemaStatus, _ = rs["flowschemas/status"].(rest.Updater)
	in.priorityLevels = storeOf(rs, "prioritylevelconfigurations")
}

// EnsureFlowControl keeps API priority and fairness's bootstrap
// configuration as Kubernetes does: the mandatory objects are created and
// always brought back to their spec; the suggested ones are created when
// missing (a deleted one comes back) and brought back while marked
// apf.kubernetes.io/autoupdate-spec: "true" — an object without the mark
// gets "true" if never changed (generation 1), "false" otherwise. Then
// every FlowSchema's Dangling condition says whether its priority level
// exists.
func (in *Instance) EnsureFlowControl(ctx context.Context) error {
	for _, pl := range bootstrap.MandatoryPriorityLevelConfigurations() {
		if err := ensureAPF(ctx, in, in.priorityLevels, pl, true, samePLSpec); err != nil {
			return err
		}
	}
	for _, pl := range bootstrap.SuggestedPriorityLevelConfigurations() {
		if err := ensureAPF(ctx, in, in.priorityLevels, pl, false, samePLSpec); err != nil {
			return err
		}
	}
	for _, fs := range bootstrap.MandatoryFlowSchemas() {
		if err := ensureAPF(ctx, in, in.flowSchemas, fs, true, sameFSSpec); err != nil {
			return err
		}
	}
	for _, fs := range bootstrap.SuggestedFlowSchemas() {
		if err := ensureAPF(ctx, in, in.flowSchemas, fs, false, sameFSSpec); err != nil {
			return err
		}
	}
	return in.updateDangling(ctx)
}

func samePLSpec(a, b *flowcontrolv1.PriorityLevelConfiguration) bool {
	return reflect.DeepEqual(a.Spec, b.Spec)
}

func sameFSSpec(a, b *flowcontrolv1.FlowSchema) bool { return reflect.DeepEqual(a.Spec, b.Spec) }

// ensureAPF creates want through st or, by the auto-update rules, brings
// the stored object back to want's spec.
func ensureAPF[T interface {
	runtime.Object
	metav1.Object
}](ctx context.Context, in *Instance, st *generic.Store, want T, mandatory bool, same func(a, b T) bool) error {
	in.Scheme.Default(want)
	name := want.GetName()
	_, err := st.Create(ctx, want.DeepCopyObject(), nil, &metav1.CreateOptions{})
	if err == nil || !apierrors.IsAlreadyExists(err) {
		if err != nil {
			return fmt.Errorf("create %s %s: %w", st.DefaultQualifiedResource, name, err)
		}
		return nil
	}
	obj, err := st.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("get %s %s: %w", st.DefaultQualifiedResource, name, err)
	}
	cur, ok := obj.(T)
	if !ok {
		return fmt.Errorf("%s storage returned %T", st.DefaultQualifiedResource, obj)
	}
	mark, marked := cur.GetAnnotations()[flowcontrolv1.AutoUpdateAnnotationKey]
	update := mandatory || mark == "true" || (!marked && cur.GetGeneration() == 1)
	next := cur.DeepCopyObject().(T)
	annotations := map[string]string{}
	for k, v := range cur.GetAnnotations() {
		annotations[k] = v
	}
	switch {
	case update:
		annotations[flowcontrolv1.AutoUpdateAnnotationKey] = "true"
		if same(cur, want) && mark == "true" {
			return nil
		}
		strategy.CopyField(next, want, "Spec")
	case !marked:
		annotations[flowcontrolv1.AutoUpdateAnnotationKey] = "false"
	default:
		return nil
	}
	next.SetAnnotations(annotations)
	if _, _, err := st.Update(ctx, name, replaceWith{next}, nil, nil, false, &metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("reconcile %s %s: %w", st.DefaultQualifiedResource, name, err)
	}
	return nil
}

// updateDangling sets each FlowSchema's Dangling condition: True when its
// priority level does not exist.
func (in *Instance) updateDangling(ctx context.Context) error {
	obj, err := in.flowSchemas.List(ctx, nil)
	if err != nil {
		return fmt.Errorf("list flowschemas: %w", err)
	}
	levels, err := in.priorityLevels.List(ctx, nil)
	if err != nil {
		return fmt.Errorf("list prioritylevelconfigurations: %w", err)
	}
	exists := map[string]bool{}
	for _, pl := range levels.(*flowcontrolv1.PriorityLevelConfigurationList).Items {
		exists[pl.Name] = true
	}
	for _, fs := range obj.(*flowcontrolv1.FlowSchemaList).Items {
		level := fs.Spec.PriorityLevelConfiguration.Name
		want := flowcontrolv1.FlowSchemaCondition{Type: flowcontrolv1.FlowSchemaConditionDangling, Status: flowcontrolv1.ConditionFalse, Reason: "Found",
			Message: fmt.Sprintf("This FlowSchema references the PriorityLevelConfiguration object named %q and it exists", level)}
		if !exists[level] {
			want.Status, want.Reason = flowcontrolv1.ConditionTrue, "NotFound"
			want.Message = fmt.Sprintf("This FlowSchema references the PriorityLevelConfiguration object named %q but there is no such object", level)
		}
		i := -1
		for j, c := range fs.Status.Conditions {
			if c.Type == want.Type {
				i = j
			}
		}
		if i >= 0 {
			c := fs.Status.Conditions[i]
			if c.Status == want.Status && c.Reason == want.Reason && c.Message == want.Message {
				continue
			}
		}
		want.LastTransitionTime = metav1.Now()
		next := fs.DeepCopy()
		if i >= 0 {
			next.Status.Conditions[i] = want
		} else {
			next.Status.Conditions = append(next.Status.Conditions, want)
		}
		if _, _, err := in.flowSchemaStatus.Update(ctx, fs.Name, replaceWith{next}, nil, nil, false, &metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return fmt.Errorf("update the status of flowschema %s: %w", fs.Name, err)
		}
	}
	return nil
}
