package v1

// SetStatusCondition adds newCondition to conditions, or updates the entry of
// the same type, and reports whether anything changed. LastTransitionTime
// moves only when the status changes: to newCondition's time, or to now when
// that is zero.
func SetStatusCondition(conditions *[]Condition, newCondition Condition) (changed bool) {
	if conditions == nil {
		return false
	}
	existing := FindStatusCondition(*conditions, newCondition.Type)
	if existing == nil {
		if newCondition.LastTransitionTime.IsZero() {
			newCondition.LastTransitionTime = Now()
		}
		*conditions = append(*conditions, newCondition)
		return true
	}
	if existing.Status != newCondition.Status {
		existing.Status = newCondition.Status
		existing.LastTransitionTime = newCondition.LastTransitionTime
		if existing.LastTransitionTime.IsZero() {
			existing.LastTransitionTime = Now()
		}
		changed = true
	}
	if existing.Reason != newCondition.Reason {
		existing.Reason = newCondition.Reason
		changed = true
	}
	if existing.Message != newCondition.Message {
		existing.Message = newCondition.Message
		changed = true
	}
	if existing.ObservedGeneration != newCondition.ObservedGeneration {
		existing.ObservedGeneration = newCondition.ObservedGeneration
		changed = true
	}
	return changed
}

// RemoveStatusCondition deletes the condition of the given type and reports
// whether there was one.
func RemoveStatusCondition(conditions *[]Condition, conditionType string) (removed bool) {
	if conditions == nil || len(*conditions) == 0 {
		return false
	}
	kept := (*conditions)[:0]
	for _, c := range *conditions {
		if c.Type == conditionType {
			removed = true
			continue
		}
		kept = append(kept, c)
	}
	clear((*conditions)[len(kept):])
	*conditions = kept
	return removed
}

// FindStatusCondition returns a pointer to the condition of the given type
// inside conditions, or nil.
func FindStatusCondition(conditions []Condition, conditionType string) *Condition {
	for i := range conditions {
		if conditions[i].Type == conditionType {
			return &conditions[i]
		}
	}
	return nil
}

// IsStatusConditionTrue reports whether the condition of the given type is present and True.
func IsStatusConditionTrue(conditions []Condition, conditionType string) bool {
	return IsStatusConditionPresentAndEqual(conditions, conditionType, ConditionTrue)
}

// IsStatusConditionFalse reports whether the condition of the given type is present and False.
func IsStatusConditionFalse(conditions []Condition, conditionType string) bool {
	return IsStatusConditionPresentAndEqual(conditions, conditionType, ConditionFalse)
}

// IsStatusConditionPresentAndEqual reports whether the condition of the given
// type is present with the given status.
func IsStatusConditionPresentAndEqual(conditions []Condition, conditionType string, status ConditionStatus) bool {
	c := FindStatusCondition(conditions, conditionType)
	return c != nil && c.Status == status
}
