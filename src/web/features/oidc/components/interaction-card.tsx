import type { ReactNode } from 'react'
import { PublicHeader } from '~web/components/public-header'
import { Card, CardContent, CardDescription, CardHeader, CardTitle, PublicPage } from '~web/components/ui/card'

/** The card of the pages an app's sign-in request shows: an icon, a title (the page's heading), a text, then actions. */
export function InteractionCard({ icon, title, description, children }: { icon?: ReactNode; title: ReactNode; description?: ReactNode; children?: ReactNode }) {
  return (
    <PublicPage header={<PublicHeader />}>
      <Card>
        <CardHeader className="text-center">
          {icon ? <div className="mx-auto mb-2 flex justify-center text-muted">{icon}</div> : null}
          <CardTitle as="h1" className="text-2xl">
            {title}
          </CardTitle>
          {description ? <CardDescription>{description}</CardDescription> : null}
        </CardHeader>
        {children ? <CardContent className="space-y-4">{children}</CardContent> : null}
      </Card>
    </PublicPage>
  )
}
