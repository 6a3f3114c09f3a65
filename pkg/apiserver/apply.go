package apiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/util/validation/field"

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
	warnings, err := e.validateApplyFields(cfg, req.validation)
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
// the endpoint serves (400 as Kubernetes words it), one without a name
// (422), and one naming another object or namespace than the path (400).
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
		return apierrors.NewInvalid(e.kind.GroupKind(), name, field.ErrorList{field.Required(field.NewPath("metadata", "name"), "name is required in an apply configuration")})
	default:
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", cfgName, name))
	}
	if cfgNS, _ := meta["namespace"].(string); e.namespaced && cfgNS != "" && cfgNS != ns {
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}

// validateApplyFields checks the configuration for unknown and duplicate
// fields per the fieldValidation directive: Strict answers 400 naming
// them, Warn returns them as warnings; under Warn and Ignore the unknown
// fields are dropped from cfg, which then fits the schema.
func (e *endpoint) validateApplyFields(cfg map[string]any, validation string) ([]string, error) {
	data, err := json.Marshal(cfg)
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding YAML: %v", err))
	}
	var dec runtime.Decoder = e.s.strict
	if e.custom != nil {
		dec = e.custom
	}
	gvk := e.kind
	_, _, err = dec.Decode(data, &gvk, e.storage.New())
	if err == nil {
		return nil, nil
	}
	sde, isStrict := runtime.AsStrictDecodingError(err)
	if !isStrict {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", e.kind.Kind, e.kind.Version, e.kind.Kind, err))
	}
	if validation == fieldValidationStrict {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", e.kind.Kind, e.kind.Version, e.kind.Kind, err))
	}
	var warnings []string
	for _, se := range sde.Errors() {
		msg := se.Error()
		if validation == fieldValidationWarn {
			warnings = append(warnings, msg)
		}
		if path, ok := strings.CutPrefix(msg, "unknown field "); ok {
			if p, err := strconv.Unquote(path); err == nil {
				dropPath(cfg, p)
			}
		}
	}
	return warnings, nil
}

// dropPath removes the field at path ("spec.containers[0].foo") from cfg.
func dropPath(cfg map[string]any, path string) {
	var cur any = cfg
	segs := splitFieldPath(path)
	for i, seg := range segs {
		last := i == len(segs)-1
		switch {
		case seg.index >= 0:
			l, ok := cur.([]any)
			if !ok || seg.index >= len(l) {
				return
			}
			cur = l[seg.index]
		default:
			m, ok := cur.(map[string]any)
			if !ok {
				return
			}
			if last {
				delete(m, seg.name)
				return
			}
			cur = m[seg.name]
		}
	}
}

type pathSegment struct {
	name  string
	index int // -1 for a field name
}

// splitFieldPath splits "a.b[2].c" into a, b, [2], c.
func splitFieldPath(path string) []pathSegment {
	var out []pathSegment
	for _, part := range strings.Split(path, ".") {
		name, rest, _ := strings.Cut(part, "[")
		if name != "" {
			out = append(out, pathSegment{name: name, index: -1})
		}
		for rest != "" {
			idx, after, ok := strings.Cut(rest, "]")
			if !ok {
				break
			}
			n, err := strconv.Atoi(idx)
			if err != nil {
				out = append(out, pathSegment{name: idx, index: -1})
			} else {
				out = append(out, pathSegment{index: n})
			}
			rest = strings.TrimPrefix(after, "[")
		}
	}
	return out
}
