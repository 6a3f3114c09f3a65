package apiserver

import (
	"fmt"
	"net/http"

	"sigs.k8s.io/yaml"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/fieldmanager"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// apply serves PATCH application/apply-patch+yaml: the body is an apply
// configuration (YAML or JSON) merged into the object by the storage's
// FieldManager as opts.FieldManager; a missing object is created.
func (e *endpoint) apply(w http.ResponseWriter, r *http.Request, req writeRequest, opts *metav1.PatchOptions, ns, name string) {
	obj, created, warnings, err := e.applyRequest(req, opts, ns, name)
	if err != nil {
		writeError(w, err)
		return
	}
	addWarnings(w, warnings)
	code := http.StatusOK
	if created {
		code = http.StatusCreated
	}
	e.s.writeObject(req.ctx, w, code, obj, req.out, e.table, tableOptions(r))
}

func (e *endpoint) applyRequest(req writeRequest, opts *metav1.PatchOptions, ns, name string) (runtime.Object, bool, []string, error) {
	if errs := fieldmanager.ValidateManager(opts.FieldManager, true); len(errs) > 0 {
		return nil, false, nil, invalidOptions("PatchOptions", errs)
	}
	applier, ok := e.storage.(rest.Applier)
	if !ok {
		return nil, false, nil, apierrors.NewUnsupportedMediaType([]string{patchJSON, patchMerge, patchStrategicMerge})
	}
	cfg := map[string]any{}
	if err := yaml.Unmarshal(req.body, &cfg); err != nil {
		return nil, false, nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding YAML: %v", err))
	}
	if cfg == nil {
		return nil, false, nil, apierrors.NewBadRequest("error decoding YAML: the apply configuration is empty")
	}
	if err := e.checkApplyTarget(cfg, ns, name); err != nil {
		return nil, false, nil, err
	}
	warnings, err := validateApplyFields(req.body, req.validation)
	if err != nil {
		return nil, false, nil, err
	}
	force := opts.Force != nil && *opts.Force
	uo := &metav1.UpdateOptions{DryRun: opts.DryRun, FieldManager: opts.FieldManager, FieldValidation: opts.FieldValidation}
	obj, created, err := applier.Apply(req.ctx, name, cfg, force, uo)
	if err != nil {
		return nil, false, nil, err
	}
	return obj, created, warnings, nil
}

// checkApplyTarget rejects a configuration of another kind or version than
// the endpoint serves (400 as Kubernetes words it) and one naming another
// object or namespace than the path (400). A configuration may leave the
// name out, as Kubernetes takes it from the live object (client-go's
// ApplyScale sends a Scale without one); the Store refuses to create an
// object from such a configuration (422).
func (e *endpoint) checkApplyTarget(cfg map[string]any, ns, name string) error {
	apiVersion, _ := cfg["apiVersion"].(string)
	kind, _ := cfg["kind"].(string)
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil || gv.WithKind(kind) != e.kind {
		return apierrors.NewBadRequest(fmt.Sprintf("invalid object type: %s, Kind=%s", apiVersion, kind))
	}
	meta, ok := cfg["metadata"].(map[string]any)
	if !ok && cfg["metadata"] != nil {
		return apierrors.NewBadRequest("metadata must be an object")
	}
	cfgName, _ := meta["name"].(string)
	switch cfgName {
	case name:
	case "":
	default:
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", cfgName, name))
	}
	if cfgNS, _ := meta["namespace"].(string); e.namespaced && cfgNS != "" && cfgNS != ns {
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}

// validateApplyFields checks the configuration for duplicate fields per
// the fieldValidation directive, as Kubernetes does for apply: Strict
// answers 400, Warn returns them as warnings, Ignore lets the last one
// win. Unknown fields are not looked for here: the field manager refuses
// them under every directive ("field not declared in schema"), since an
// apply configuration must fit the schema to be owned field by field.
func validateApplyFields(body []byte, validation string) ([]string, error) {
	if validation != fieldValidationStrict && validation != fieldValidationWarn {
		return nil, nil
	}
	err := yaml.UnmarshalStrict(body, &map[string]any{})
	switch {
	case err == nil:
		return nil, nil
	case validation == fieldValidationStrict:
		return nil, apierrors.NewBadRequest(fmt.Sprintf("error strict decoding YAML: %v", err))
	default:
		return []string{err.Error()}, nil
	}
}
