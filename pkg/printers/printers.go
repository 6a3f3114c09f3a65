// Package printers renders API objects as the meta/v1 Tables that kubectl get
// prints: per resource, the columns and cells Kubernetes' server-side printers give.
package printers

import (
	"context"
	"fmt"
	"slices"
	"time"

	apiregistrationv1 "kubecore.io/api/apiregistration/v1"
	appsv1 "kubecore.io/api/apps/v1"
	certificatesv1 "kubecore.io/api/certificates/v1"
	coordinationv1 "kubecore.io/api/coordination/v1"
	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
	flowcontrolv1 "kubecore.io/api/flowcontrol/v1"
	policyv1 "kubecore.io/api/policy/v1"
	schedulingv1 "kubecore.io/api/scheduling/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/rest"
	"kubecore.io/kubecore/pkg/storage"
)

// TableConvertorFor returns the Table convertor of a resource, reading the
// wall clock for ages; nil when the resource has no printer, in which case
// the Store's default table (Name, Created At) applies.
func TableConvertorFor(gr schema.GroupResource) rest.TableConvertor {
	return NewTableConvertor(gr, time.Now)
}

// NewTableConvertor is TableConvertorFor with an injectable clock: now gives
// the instant ages and "ago" cells are measured from.
func NewTableConvertor(gr schema.GroupResource, now func() time.Time) rest.TableConvertor {
	if now == nil {
		now = time.Now
	}
	if t := batchTableConvertor(gr, now); t != nil {
		return t
	}
	if t := networkingTableConvertor(gr, now); t != nil {
		return t
	}
	if t := nodeTableConvertor(gr, now); t != nil {
		return t
	}
	if t := storageTableConvertor(gr, now); t != nil {
		return t
	}
	if t := autoscalingTableConvertor(gr, now); t != nil {
		return t
	}
	if t := resourceTableConvertor(gr, now); t != nil {
		return t
	}
	core := func(kind string) schema.GroupVersionKind { return corev1.SchemeGroupVersion.WithKind(kind) }
	apps := func(kind string) schema.GroupVersionKind { return appsv1.SchemeGroupVersion.WithKind(kind) }
	switch gr {
	case schema.GroupResource{Resource: "pods"}:
		return newPrinter(now, core("Pod"), podColumns(), printPod, func(l *corev1.PodList) []corev1.Pod { return l.Items })
	case schema.GroupResource{Resource: "nodes"}:
		return newPrinter(now, core("Node"), nodeColumns(), printNode, func(l *corev1.NodeList) []corev1.Node { return l.Items })
	case schema.GroupResource{Resource: "namespaces"}:
		return newPrinter(now, core("Namespace"), namespaceColumns(), printNamespace, func(l *corev1.NamespaceList) []corev1.Namespace { return l.Items })
	case schema.GroupResource{Resource: "services"}:
		return newPrinter(now, core("Service"), serviceColumns(), printService, func(l *corev1.ServiceList) []corev1.Service { return l.Items })
	case schema.GroupResource{Resource: "endpoints"}:
		return newPrinter(now, core("Endpoints"), endpointsColumns(), printEndpoints, func(l *corev1.EndpointsList) []corev1.Endpoints { return l.Items })
	case schema.GroupResource{Resource: "configmaps"}:
		return newPrinter(now, core("ConfigMap"), configMapColumns(), printConfigMap, func(l *corev1.ConfigMapList) []corev1.ConfigMap { return l.Items })
	case schema.GroupResource{Resource: "secrets"}:
		return newPrinter(now, core("Secret"), secretColumns(), printSecret, func(l *corev1.SecretList) []corev1.Secret { return l.Items })
	case schema.GroupResource{Resource: "serviceaccounts"}:
		return newPrinter(now, core("ServiceAccount"), serviceAccountColumns(), printServiceAccount, func(l *corev1.ServiceAccountList) []corev1.ServiceAccount { return l.Items })
	case schema.GroupResource{Resource: "events"}:
		return newPrinter(now, core("Event"), eventColumns(), printEvent, func(l *corev1.EventList) []corev1.Event { return l.Items })
	case schema.GroupResource{Resource: "podtemplates"}:
		return newPrinter(now, core("PodTemplate"), podTemplateColumns(), printPodTemplate, func(l *corev1.PodTemplateList) []corev1.PodTemplate { return l.Items })
	case schema.GroupResource{Resource: "persistentvolumeclaims"}:
		return newPrinter(now, core("PersistentVolumeClaim"), pvcColumns(), printPVC, func(l *corev1.PersistentVolumeClaimList) []corev1.PersistentVolumeClaim { return l.Items })
	case schema.GroupResource{Resource: "persistentvolumes"}:
		return newPrinter(now, core("PersistentVolume"), pvColumns(), printPV, func(l *corev1.PersistentVolumeList) []corev1.PersistentVolume { return l.Items })
	case schema.GroupResource{Resource: "replicationcontrollers"}:
		return newPrinter(now, core("ReplicationController"), replicationControllerColumns(), printReplicationController, func(l *corev1.ReplicationControllerList) []corev1.ReplicationController { return l.Items })
	case schema.GroupResource{Resource: "limitranges"}:
		return newPrinter(now, core("LimitRange"), limitRangeColumns(), printLimitRange, func(l *corev1.LimitRangeList) []corev1.LimitRange { return l.Items })
	case schema.GroupResource{Resource: "resourcequotas"}:
		return newPrinter(now, core("ResourceQuota"), resourceQuotaColumns(), printResourceQuota, func(l *corev1.ResourceQuotaList) []corev1.ResourceQuota { return l.Items })
	case schema.GroupResource{Resource: "componentstatuses"}:
		return newPrinter(now, core("ComponentStatus"), componentStatusColumns(), printComponentStatus, func(l *corev1.ComponentStatusList) []corev1.ComponentStatus { return l.Items })
	case schema.GroupResource{Group: appsv1.GroupName, Resource: "deployments"}:
		return newPrinter(now, apps("Deployment"), deploymentColumns(), printDeployment, func(l *appsv1.DeploymentList) []appsv1.Deployment { return l.Items })
	case schema.GroupResource{Group: appsv1.GroupName, Resource: "replicasets"}:
		return newPrinter(now, apps("ReplicaSet"), replicaSetColumns(), printReplicaSet, func(l *appsv1.ReplicaSetList) []appsv1.ReplicaSet { return l.Items })
	case schema.GroupResource{Group: appsv1.GroupName, Resource: "statefulsets"}:
		return newPrinter(now, apps("StatefulSet"), statefulSetColumns(), printStatefulSet, func(l *appsv1.StatefulSetList) []appsv1.StatefulSet { return l.Items })
	case schema.GroupResource{Group: appsv1.GroupName, Resource: "daemonsets"}:
		return newPrinter(now, apps("DaemonSet"), daemonSetColumns(), printDaemonSet, func(l *appsv1.DaemonSetList) []appsv1.DaemonSet { return l.Items })
	case schema.GroupResource{Group: appsv1.GroupName, Resource: "controllerrevisions"}:
		return newPrinter(now, apps("ControllerRevision"), controllerRevisionColumns(), printControllerRevision, func(l *appsv1.ControllerRevisionList) []appsv1.ControllerRevision { return l.Items })
	case schema.GroupResource{Group: coordinationv1.GroupName, Resource: "leases"}:
		return newPrinter(now, coordinationv1.SchemeGroupVersion.WithKind("Lease"), leaseColumns(), printLease, func(l *coordinationv1.LeaseList) []coordinationv1.Lease { return l.Items })
	case schema.GroupResource{Group: schedulingv1.GroupName, Resource: "priorityclasses"}:
		return newPrinter(now, schedulingv1.SchemeGroupVersion.WithKind("PriorityClass"), priorityClassColumns(), printPriorityClass, func(l *schedulingv1.PriorityClassList) []schedulingv1.PriorityClass { return l.Items })
	case schema.GroupResource{Group: certificatesv1.GroupName, Resource: "certificatesigningrequests"}:
		return newPrinter(now, certificatesv1.SchemeGroupVersion.WithKind("CertificateSigningRequest"), csrColumns(), printCSR, func(l *certificatesv1.CertificateSigningRequestList) []certificatesv1.CertificateSigningRequest {
			return l.Items
		})
	case schema.GroupResource{Group: discoveryv1.GroupName, Resource: "endpointslices"}:
		return newPrinter(now, discoveryv1.SchemeGroupVersion.WithKind("EndpointSlice"), endpointSliceColumns(), printEndpointSlice, func(l *discoveryv1.EndpointSliceList) []discoveryv1.EndpointSlice { return l.Items })
	case schema.GroupResource{Group: policyv1.GroupName, Resource: "poddisruptionbudgets"}:
		return newPrinter(now, policyv1.SchemeGroupVersion.WithKind("PodDisruptionBudget"), pdbColumns(), printPDB, func(l *policyv1.PodDisruptionBudgetList) []policyv1.PodDisruptionBudget { return l.Items })
	case apiregistrationv1.Resource("apiservices"):
		return newPrinter(now, apiregistrationv1.SchemeGroupVersion.WithKind("APIService"), apiServiceColumns(), printAPIService, func(l *apiregistrationv1.APIServiceList) []apiregistrationv1.APIService { return l.Items })
	case flowcontrolv1.Resource("flowschemas"):
		return newPrinter(now, flowcontrolv1.SchemeGroupVersion.WithKind("FlowSchema"), flowSchemaColumns(), printFlowSchema, func(l *flowcontrolv1.FlowSchemaList) []flowcontrolv1.FlowSchema { return l.Items })
	case flowcontrolv1.Resource("prioritylevelconfigurations"):
		return newPrinter(now, flowcontrolv1.SchemeGroupVersion.WithKind("PriorityLevelConfiguration"), priorityLevelColumns(), printPriorityLevel,
			func(l *flowcontrolv1.PriorityLevelConfigurationList) []flowcontrolv1.PriorityLevelConfiguration {
				return l.Items
			})
	}
	if p := admissionRegistrationPrinter(gr, now); p != nil {
		return p
	}
	return nil
}

// row is what a resource's print function gives for one object.
type row struct {
	cells      []any
	conditions []metav1.TableRowCondition
}

// printContext carries what cells depend on besides the object.
type printContext struct {
	now time.Time
}

// age renders how long ago t was as kubectl does, "<unknown>" when unset.
func (c *printContext) age(t metav1.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return HumanDuration(c.now.Sub(t.Time))
}

// microAge is age for a MicroTime.
func (c *printContext) microAge(t metav1.MicroTime) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return HumanDuration(c.now.Sub(t.Time))
}

// printer is the TableConvertor of one resource whose item type is T and
// list type L.
type printer[T, L any, PT interface {
	*T
	runtime.Object
}, PL interface {
	*L
	runtime.Object
}] struct {
	now     func() time.Time
	gvk     schema.GroupVersionKind
	columns []metav1.TableColumnDefinition
	print   func(*printContext, PT) (row, error)
	items   func(PL) []T
}

func newPrinter[T, L any, PT interface {
	*T
	runtime.Object
}, PL interface {
	*L
	runtime.Object
}](now func() time.Time, gvk schema.GroupVersionKind, columns []metav1.TableColumnDefinition, print func(*printContext, PT) (row, error), items func(PL) []T) *printer[T, L, PT, PL] {
	return &printer[T, L, PT, PL]{now: now, gvk: gvk, columns: columns, print: print, items: items}
}

var _ rest.TableConvertor = (*printer[corev1.Pod, corev1.PodList, *corev1.Pod, *corev1.PodList])(nil)

// ConvertToTable implements rest.TableConvertor for one object or a list.
func (p *printer[T, L, PT, PL]) ConvertToTable(_ context.Context, obj runtime.Object, opts *metav1.TableOptions) (*metav1.Table, error) {
	pc := &printContext{now: p.now()}
	table := &metav1.Table{TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"}}
	switch o := storage.Unwrap(obj).(type) {
	case PT:
		r, err := p.row(pc, o, obj, opts)
		if err != nil {
			return nil, err
		}
		table.Rows = []metav1.TableRow{r}
	case PL:
		items := p.items(o)
		table.Rows = make([]metav1.TableRow, 0, len(items))
		for i := range items {
			item := PT(&items[i])
			rowObj := runtime.Object(item)
			if includesObject(opts) && item.GetObjectKind().GroupVersionKind().Empty() {
				// List items carry no kind; the row's object must.
				cp := items[i]
				PT(&cp).GetObjectKind().SetGroupVersionKind(p.gvk)
				rowObj = PT(&cp)
			}
			r, err := p.row(pc, item, rowObj, opts)
			if err != nil {
				return nil, err
			}
			table.Rows = append(table.Rows, r)
		}
		if lm, ok := any(o).(metav1.ListMetaAccessor); ok {
			m := lm.GetListMeta()
			table.ResourceVersion = m.GetResourceVersion()
			table.Continue = m.GetContinue()
			table.RemainingItemCount = m.GetRemainingItemCount()
		}
	default:
		return nil, apierrors.NewInternalError(fmt.Errorf("print %s as a table: unexpected object %T", p.gvk.Kind, obj))
	}
	if opts == nil || !opts.NoHeaders {
		table.ColumnDefinitions = slices.Clone(p.columns)
	}
	return table, nil
}

// row prints obj; rowObj is what the row's object is encoded from (the
// original, possibly pre-encoded, object).
func (p *printer[T, L, PT, PL]) row(pc *printContext, obj PT, rowObj runtime.Object, opts *metav1.TableOptions) (metav1.TableRow, error) {
	r, err := p.print(pc, obj)
	if err != nil {
		return metav1.TableRow{}, apierrors.NewInternalError(fmt.Errorf("print %s: %w", p.gvk.Kind, err))
	}
	out := metav1.TableRow{Cells: r.cells, Conditions: r.conditions}
	if out.Object, err = generic.RowObject(rowObj, opts); err != nil {
		return metav1.TableRow{}, apierrors.NewInternalError(fmt.Errorf("encode %s row object: %w", p.gvk.Kind, err))
	}
	return out, nil
}

func includesObject(opts *metav1.TableOptions) bool {
	return opts != nil && opts.IncludeObject == metav1.IncludeObject
}

// Column helpers: every table starts with the name column and most carry an
// age column.
func nameColumn() metav1.TableColumnDefinition {
	return metav1.TableColumnDefinition{Name: "Name", Type: "string", Format: "name", Description: "Name of the object, unique in its namespace."}
}

func ageColumn() metav1.TableColumnDefinition {
	return metav1.TableColumnDefinition{Name: "Age", Type: "string", Description: "Time since the server created the object."}
}

func column(name, typ, description string) metav1.TableColumnDefinition {
	return metav1.TableColumnDefinition{Name: name, Type: typ, Description: description}
}

func wideColumn(name, typ, description string) metav1.TableColumnDefinition {
	return metav1.TableColumnDefinition{Name: name, Type: typ, Description: description, Priority: 1}
}
