import { ApiProcess, launch, runProcess } from "./Main.js"

/** The API process: stateless, any number behind a load balancer. */
runProcess(launch(ApiProcess))
