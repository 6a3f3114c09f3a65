package printers

import (
	"fmt"
	"strings"

	appsv1 "kubecore.io/api/apps/v1"
	coordinationv1 "kubecore.io/api/coordination/v1"
	policyv1 "kubecore.io/api/policy/v1"
	schedulingv1 "kubecore.io/api/scheduling/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/util/intstr"
)

func templateColumns(selector bool) []metav1.TableColumnDefinition {
	cols := []metav1.TableColumnDefinition{
		wideColumn("Containers", "string", "Names of the template's containers."),
		wideColumn("Images", "string", "Images of the template's containers."),
	}
	if selector {
		cols = append(cols, wideColumn("Selector", "string", "The label selector of the managed pods."))
	}
	return cols
}

// selectorString renders a label selector as kubectl does; a nil selector
// selects nothing and renders empty.
func selectorString(sel *metav1.LabelSelector) (string, error) {
	if sel == nil {
		return "", nil
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return "", fmt.Errorf("selector: %w", err)
	}
	return s.String(), nil
}

func replicas(r *int32) int32 {
	if r == nil {
		return 0
	}
	return *r
}

func deploymentColumns() []metav1.TableColumnDefinition {
	return append([]metav1.TableColumnDefinition{
		nameColumn(),
		column("Ready", "string", "Ready pods out of the desired replicas."),
		column("Up-to-date", "string", "Pods running the newest template."),
		column("Available", "string", "Pods available to serve."),
		ageColumn(),
	}, templateColumns(true)...)
}

func printDeployment(c *printContext, d *appsv1.Deployment) (row, error) {
	names, images := containerCells(d.Spec.Template.Spec.Containers)
	sel, err := selectorString(d.Spec.Selector)
	if err != nil {
		return row{}, err
	}
	return row{cells: []any{
		d.Name, fmt.Sprintf("%d/%d", d.Status.ReadyReplicas, replicas(d.Spec.Replicas)),
		int64(d.Status.UpdatedReplicas), int64(d.Status.AvailableReplicas), c.age(d.CreationTimestamp),
		names, images, sel,
	}}, nil
}

func replicaSetColumns() []metav1.TableColumnDefinition {
	return append([]metav1.TableColumnDefinition{
		nameColumn(),
		column("Desired", "integer", "The desired number of pods."),
		column("Current", "integer", "The number of pods that exist."),
		column("Ready", "integer", "The number of ready pods."),
		ageColumn(),
	}, templateColumns(true)...)
}

func printReplicaSet(c *printContext, rs *appsv1.ReplicaSet) (row, error) {
	names, images := containerCells(rs.Spec.Template.Spec.Containers)
	sel, err := selectorString(rs.Spec.Selector)
	if err != nil {
		return row{}, err
	}
	return row{cells: []any{
		rs.Name, int64(replicas(rs.Spec.Replicas)), int64(rs.Status.Replicas), int64(rs.Status.ReadyReplicas),
		c.age(rs.CreationTimestamp), names, images, sel,
	}}, nil
}

func statefulSetColumns() []metav1.TableColumnDefinition {
	return append([]metav1.TableColumnDefinition{
		nameColumn(),
		column("Ready", "string", "Ready pods out of the desired replicas."),
		ageColumn(),
	}, templateColumns(false)...)
}

func printStatefulSet(c *printContext, ss *appsv1.StatefulSet) (row, error) {
	names, images := containerCells(ss.Spec.Template.Spec.Containers)
	return row{cells: []any{
		ss.Name, fmt.Sprintf("%d/%d", ss.Status.ReadyReplicas, replicas(ss.Spec.Replicas)),
		c.age(ss.CreationTimestamp), names, images,
	}}, nil
}

func daemonSetColumns() []metav1.TableColumnDefinition {
	return append([]metav1.TableColumnDefinition{
		nameColumn(),
		column("Desired", "integer", "Nodes that should run the daemon pod."),
		column("Current", "integer", "Nodes running the daemon pod."),
		column("Ready", "integer", "Nodes running a ready daemon pod."),
		column("Up-to-date", "integer", "Nodes running the newest daemon pod."),
		column("Available", "integer", "Nodes running an available daemon pod."),
		column("Node Selector", "string", "The node selector of the daemon pods."),
		ageColumn(),
	}, templateColumns(true)...)
}

func printDaemonSet(c *printContext, ds *appsv1.DaemonSet) (row, error) {
	names, images := containerCells(ds.Spec.Template.Spec.Containers)
	sel, err := selectorString(ds.Spec.Selector)
	if err != nil {
		return row{}, err
	}
	st := ds.Status
	return row{cells: []any{
		ds.Name, int64(st.DesiredNumberScheduled), int64(st.CurrentNumberScheduled), int64(st.NumberReady),
		int64(st.UpdatedNumberScheduled), int64(st.NumberAvailable), labels.FormatLabels(ds.Spec.Template.Spec.NodeSelector),
		c.age(ds.CreationTimestamp), names, images, sel,
	}}, nil
}

func controllerRevisionColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Controller", "string", "The controller owning the revision: kind.group/name."),
		column("Revision", "string", "The revision number."),
		ageColumn(),
	}
}

func printControllerRevision(c *printContext, cr *appsv1.ControllerRevision) (row, error) {
	controller := "<none>"
	if ref := metav1.GetControllerOf(cr); ref != nil {
		// kind.group/name, lower case, or the bare name without a kind.
		group, _, _ := strings.Cut(ref.APIVersion, "/")
		if !strings.Contains(ref.APIVersion, "/") {
			group = ""
		}
		kind := ref.Kind
		if group != "" {
			kind += "." + group
		}
		controller = ref.Name
		if kind != "" {
			controller = strings.ToLower(kind) + "/" + ref.Name
		}
	}
	return row{cells: []any{cr.Name, controller, cr.Revision, c.age(cr.CreationTimestamp)}}, nil
}

func leaseColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Holder", "string", "The identity holding the lease."),
		ageColumn(),
	}
}

func printLease(c *printContext, l *coordinationv1.Lease) (row, error) {
	holder := ""
	if l.Spec.HolderIdentity != nil {
		holder = *l.Spec.HolderIdentity
	}
	return row{cells: []any{l.Name, holder, c.age(l.CreationTimestamp)}}, nil
}

func priorityClassColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Value", "integer", "The priority pods of the class get."),
		column("Global-Default", "boolean", "Whether pods without a class get this one."),
		ageColumn(),
		column("PreemptionPolicy", "string", "Whether pods of the class may preempt lower-priority pods."),
	}
}

func printPriorityClass(c *printContext, pc *schedulingv1.PriorityClass) (row, error) {
	policy := ""
	if pc.PreemptionPolicy != nil {
		policy = string(*pc.PreemptionPolicy)
	}
	return row{cells: []any{pc.Name, int64(pc.Value), pc.GlobalDefault, c.age(pc.CreationTimestamp), policy}}, nil
}

func pdbColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Min Available", "string", "Pods that must stay available."),
		column("Max Unavailable", "string", "Pods that may be unavailable."),
		column("Allowed Disruptions", "integer", "Pods that may be disrupted now."),
		ageColumn(),
	}
}

func printPDB(c *printContext, pdb *policyv1.PodDisruptionBudget) (row, error) {
	orNA := func(v *intstr.IntOrString) string {
		if v == nil {
			return "N/A"
		}
		return v.String()
	}
	return row{cells: []any{
		pdb.Name, orNA(pdb.Spec.MinAvailable), orNA(pdb.Spec.MaxUnavailable),
		int64(pdb.Status.DisruptionsAllowed), c.age(pdb.CreationTimestamp),
	}}, nil
}
