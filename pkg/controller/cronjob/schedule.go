package cronjob

import (
	"fmt"
	"time"

	batchv1 "kubecore.io/api/batch/v1"

	"kubecore.io/kubecore/pkg/apis/batch/cron"
)

// tooManyMissed is the count of missed start times beyond which the
// controller warns, as Kubernetes does.
const tooManyMissed = 100

// maxScan bounds the start times mostRecentSchedule walks through.
const maxScan = 1_000_000

// mostRecentSchedule returns the latest start time of cj's schedule at or
// before now that is not yet handled (after lastScheduleTime, or the
// creation time; no earlier than startingDeadlineSeconds ago), the zero
// time if there is none, and how many such start times there are.
func mostRecentSchedule(cj *batchv1.CronJob, sched *cron.Schedule, loc *time.Location, now time.Time) (time.Time, int) {
	earliest := cj.CreationTimestamp.Time
	if t := cj.Status.LastScheduleTime; t != nil {
		earliest = t.Time
	}
	if d := cj.Spec.StartingDeadlineSeconds; d != nil {
		if since := now.Add(-time.Duration(*d) * time.Second); since.After(earliest) {
			earliest = since
		}
	}
	var last time.Time
	count := 0
	for t := sched.Next(earliest.In(loc)); !t.IsZero() && !t.After(now) && count < maxScan; t = sched.Next(t) {
		last = t
		count++
	}
	return last, count
}

// jobName is the name of cj's Job for the start time t: the CronJob's name
// and the minutes since the epoch, as Kubernetes names them.
func jobName(cj *batchv1.CronJob, t time.Time) string {
	return fmt.Sprintf("%s-%d", cj.Name, t.Unix()/60)
}
