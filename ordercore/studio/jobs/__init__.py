"""The Studio's long work, in background processes with progress, cancel, a failure in words and
their files cleaned up: one mechanism (``process``) and its kinds of job, automatic trust's assessment
(``trust``) and the GP fit (``gp``).  A session engine (``ordercore.studio.session``) starts and
watches them; no page does."""

from ordercore.studio.jobs.process import BackgroundJob, JobStatus

__all__ = ["BackgroundJob", "JobStatus"]
