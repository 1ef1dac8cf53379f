/**
 * deploy/kubernetes/: every object validated offline against the Kubernetes API schema (kubernetes-models,
 * generated from the Kubernetes OpenAPI), the gVisor overlay applied as kustomize would and validated too,
 * and the wiring a deployment depends on: probes, limits, the Secret, the drain bound, selectors.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Deployment } from 'kubernetes-models/apps/v1/Deployment'
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler'
import { RuntimeClass } from 'kubernetes-models/node.k8s.io/v1/RuntimeClass'
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget'
import { Secret } from 'kubernetes-models/v1/Secret'
import { Service } from 'kubernetes-models/v1/Service'
import { describe, expect, it } from 'vitest'
import { parseAllDocuments } from 'yaml'
import { REPO } from './paths.js'

const DIR = join(REPO, 'deploy', 'kubernetes')
type Obj = { apiVersion: string; kind: string; metadata: { name: string }; [k: string]: unknown }
/** The manifests are data: the schema, not the type, checks them. */
type Any = any

const MODELS: Record<string, new (data: Any) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'v1/Service': Service,
  'v1/Secret': Secret,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'node.k8s.io/v1/RuntimeClass': RuntimeClass,
}

function load(file: string): Obj[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((d) => {
    if (d.errors.length) throw new Error(`${file}: ${d.errors[0]!.message}`)
    return d.toJS() as Obj
  })
}

/** Validates against the API schema; the error names the field. */
function validate(obj: Obj): void {
  const Model = MODELS[`${obj.apiVersion}/${obj.kind}`]
  if (!Model) throw new Error(`no schema here for ${obj.apiVersion} ${obj.kind}`)
  new Model(obj).validate()
}

const manifests = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
    .flatMap((f) => load(join(dir, f)))

/** kustomize's JSON 6902 `add` of the overlay, on a copy. */
function applyAdd(target: Obj, ops: { op: string; path: string; value: unknown }[]): Obj {
  const copy = structuredClone(target) as Any
  for (const { op, path, value } of ops) {
    expect(op).toBe('add')
    const keys = path.split('/').slice(1)
    const parent = keys.slice(0, -1).reduce((o, k) => o[k], copy)
    parent[keys.at(-1)!] = value
  }
  return copy
}

describe('the Kubernetes manifests', () => {
  const base = manifests(DIR)
  const find = (kind: string) => base.find((o) => o.kind === kind) as Any

  it('are valid objects of the Kubernetes API, every one', () => {
    expect(base.map((o) => o.kind).sort()).toEqual([
      'Deployment',
      'HorizontalPodAutoscaler',
      'HorizontalPodAutoscaler',
      'PodDisruptionBudget',
      'Secret',
      'Service',
    ])
    for (const obj of base) expect(() => validate(obj), `${obj.kind} ${obj.metadata.name}`).not.toThrow()
  })

  it('the validator refuses what the API server would', () => {
    const d = find('Deployment')
    const broken = structuredClone(d)
    broken.spec.replicas = 'three'
    expect(() => validate(broken)).toThrow(/replicas must be integer/)
    const noPort = structuredClone(d)
    delete noPort.spec.template.spec.containers[0].readinessProbe.httpGet.port
    expect(() => validate(noPort)).toThrow(/readinessProbe\/httpGet must have required property port/)
  })

  it('probe /healthz and /readyz, bound CPU and memory, read the store and token from the Secret, outlast the drain', () => {
    const d = find('Deployment')
    const pod = d.spec.template.spec
    const c = pod.containers[0]
    expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' })
    expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' })
    expect(c.ports).toContainEqual(expect.objectContaining({ name: 'http', containerPort: 8080 }))
    expect(c.resources.limits).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) })
    expect(c.resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) })
    const env = Object.fromEntries(c.env.map((e: Any) => [e.name, e.valueFrom?.secretKeyRef]))
    expect(env).toEqual({
      CODEACT_STORE: { name: 'codeact', key: 'database-url' },
      CODEACT_MCP_TOKEN: { name: 'codeact', key: 'mcp-token' },
    })
    expect(c.args.slice(0, 2)).toEqual(['--store', '$(CODEACT_STORE)'])
    const drainMs = Number(c.args[c.args.indexOf('--drain-timeout') + 1])
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(drainMs)
    expect(c.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true })
    const secret = find('Secret')
    expect(Object.keys(secret.stringData).sort()).toEqual(['database-url', 'mcp-token'])
  })

  it('select the Deployment from the Service, the disruption budget and the autoscalers', () => {
    const labels = find('Deployment').spec.template.metadata.labels
    expect(find('Service').spec.selector).toEqual(labels)
    expect(find('Service').spec.ports[0].targetPort).toBe('http')
    expect(find('PodDisruptionBudget').spec.selector.matchLabels).toEqual(labels)
    const hpas = base.filter((o) => o.kind === 'HorizontalPodAutoscaler') as Any[]
    for (const hpa of hpas) expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'codeact' })
    expect(hpas.map((h) => h.spec.metrics[0].resource?.name ?? h.spec.metrics[0].pods?.metric.name).sort()).toEqual([
      'codeact_runs_in_flight',
      'cpu',
    ])
  })

  it('run every pod under gVisor with the overlay, still valid', () => {
    const overlay = load(join(DIR, 'gvisor', 'kustomization.yaml'))[0] as Any
    expect(overlay.resources).toEqual(['..', 'runtimeclass.yaml'])
    const ops = parseAllDocuments(overlay.patches[0].patch)[0]!.toJS()
    const patched = applyAdd(find('Deployment'), ops)
    expect(() => validate(patched)).not.toThrow()
    expect((patched as Any).spec.template.spec.runtimeClassName).toBe('gvisor')
    const runtimeClass = manifests(join(DIR, 'gvisor'))
    expect(runtimeClass).toEqual([{ apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'gvisor' }, handler: 'runsc' }])
    for (const obj of runtimeClass) validate(obj)
    const root = load(join(DIR, 'kustomization.yaml'))[0] as Any
    expect(root.resources).toEqual(['codeact.yaml'])
  })
})
