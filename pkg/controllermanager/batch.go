package controllermanager

import (
	"context"

	"kubecore.io/client/informers"

	"kubecore.io/kubecore/pkg/controller/cronjob"
	"kubecore.io/kubecore/pkg/controller/job"
)

func startJobController(_ context.Context, cc ControllerContext) (RunFunc, error) {
	jobInf, err := informers.Jobs(cc.InformerFactory)
	if err != nil {
		return nil, err
	}
	podInf, err := informers.Pods(cc.InformerFactory)
	if err != nil {
		return nil, err
	}
	c, err := job.New(cc.Client, jobInf, podInf, cc.Recorder("job-controller"), job.Options{})
	if err != nil {
		return nil, err
	}
	workers := cc.Workers(job.Name)
	return func(ctx context.Context) error { return c.Run(ctx, workers) }, nil
}

func startCronJobController(_ context.Context, cc ControllerContext) (RunFunc, error) {
	cjInf, err := informers.CronJobs(cc.InformerFactory)
	if err != nil {
		return nil, err
	}
	jobInf, err := informers.Jobs(cc.InformerFactory)
	if err != nil {
		return nil, err
	}
	c, err := cronjob.New(cc.Client, cjInf, jobInf, cc.Recorder("cronjob-controller"), cronjob.Options{})
	if err != nil {
		return nil, err
	}
	workers := cc.Workers(cronjob.Name)
	return func(ctx context.Context) error { return c.Run(ctx, workers) }, nil
}
