import { BackgroundWorkVariables, launch, runProcess, WorkerProcess } from "./Main.js"

/** A worker process: any number of them share the job queue. */
runProcess(launch(WorkerProcess, BackgroundWorkVariables))
