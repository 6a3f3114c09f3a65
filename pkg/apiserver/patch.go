package apiserver

import (
	"context"
	"fmt"
	"mime"
	"net/http"
	"sync"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"k8s.io/apimachinery/pkg/util/strategicpatch"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/registry/rest"
	"kubecore.io/kubecore/pkg/storage"
)

// The patch content types.
const (
	patchJSON           = "application/json-patch+json"
	patchMerge          = "application/merge-patch+json"
	patchStrategicMerge = "application/strategic-merge-patch+json"
	patchApply          = "application/apply-patch+yaml"
)

// patchObject is the UpdatedObjectInfo of a PATCH: it applies the patch to
// whatever object is current, every time the storage retries.
type patchObject struct {
	e          *endpoint
	name, ns   string
	patchType  string
	patch      []byte
	validation string
	mu         sync.Mutex
	warnings   []string
}

var _ rest.UpdatedObjectInfo = (*patchObject)(nil)

func (p *patchObject) Preconditions() *metav1.Preconditions { return nil }

func (p *patchObject) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	if old == nil {
		return nil, apierrors.NewNotFound(p.e.groupResource(), p.name)
	}
	original, err := p.e.s.encode(storage.Unwrap(old))
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	var patched []byte
	switch p.patchType {
	case patchJSON:
		ops, err := jsonpatch.DecodePatch(p.patch)
		if err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("decode JSON patch: %v", err))
		}
		if patched, err = ops.Apply(original); err != nil {
			return nil, unprocessable(fmt.Sprintf("the JSON patch could not be applied: %v", err))
		}
	case patchMerge:
		if patched, err = jsonpatch.MergePatch(original, p.patch); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the merge patch could not be applied: %v", err))
		}
	case patchStrategicMerge:
		if patched, err = strategicpatch.StrategicMergePatch(original, p.patch, p.e.storage.New()); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the strategic merge patch could not be applied: %v", err))
		}
	}
	obj, warnings, err := p.e.decode(patched, p.validation)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.warnings = warnings
	p.mu.Unlock()
	if err := p.e.checkTarget(obj, p.ns, p.name); err != nil {
		return nil, err
	}
	return obj, nil
}

// unprocessable is Kubernetes' 422 for a patch that cannot apply.
func unprocessable(msg string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Message: msg, Reason: metav1.StatusReasonInvalid,
		Code: http.StatusUnprocessableEntity, Details: &metav1.StatusDetails{},
	}}
}

// patchContentType checks that the request's Content-Type is a patch type
// this endpoint applies.
func (e *endpoint) patchContentType(r *http.Request) error {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct == patchStrategicMerge && e.custom != nil {
		// As in Kubernetes: custom resources have no patch strategies.
		return apierrors.NewUnsupportedMediaType([]string{patchJSON, patchMerge})
	}
	switch ct {
	case patchJSON, patchMerge, patchStrategicMerge:
		return nil
	case patchApply:
		if _, ok := e.storage.(rest.Applier); ok {
			return nil
		}
		return &apierrors.StatusError{ErrStatus: metav1.Status{
			Status:  metav1.StatusFailure,
			Message: fmt.Sprintf("server-side apply (application/apply-patch+yaml) is not supported for %s; use a json, merge or strategic-merge patch", e.groupResource()),
			Reason:  metav1.StatusReasonUnsupportedMediaType,
			Code:    http.StatusUnsupportedMediaType,
			Details: &metav1.StatusDetails{},
		}}
	default:
		return apierrors.NewUnsupportedMediaType([]string{patchJSON, patchMerge, patchStrategicMerge})
	}
}

func (e *endpoint) patch(w http.ResponseWriter, r *http.Request, ns, name string) {
	var opts metav1.PatchOptions
	req, ok := e.readWrite(w, r, ns, &opts, e.patchContentType)
	if !ok {
		return
	}
	if len(req.body) == 0 {
		writeError(w, apierrors.NewBadRequest("the patch is empty"))
		return
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct == patchApply {
		e.apply(w, r, req, &opts, ns, name)
		return
	}
	if opts.Force != nil {
		writeError(w, invalidOptions("PatchOptions", field.ErrorList{field.Forbidden(field.NewPath("force"), "may not be specified for non-apply patch")}))
		return
	}
	info := &patchObject{e: e, name: name, ns: ns, patchType: ct, patch: req.body, validation: req.validation}
	ctx := req.ctx
	uo := metav1.UpdateOptions{DryRun: opts.DryRun, FieldManager: opts.FieldManager, FieldValidation: opts.FieldValidation}
	updated, _, err := e.storage.(rest.Updater).Update(ctx, name, info, nil, nil, false, &uo)
	if err != nil {
		writeError(w, err)
		return
	}
	info.mu.Lock()
	addWarnings(w, info.warnings)
	info.mu.Unlock()
	e.s.writeObject(ctx, w, http.StatusOK, updated, req.out, e.table, tableOptions(r))
}
