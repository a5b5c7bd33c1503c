import type { ReactNode } from 'react'
import { PublicHeader } from '~web/components/public-header'
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle, PublicPage } from '~web/components/ui/card'

/**
 * The card every signed-out page is made of (sign-in, registration, the pages an app's sign-in
 * request shows): an icon, a title (the page's heading), a description, the body, footer links.
 */
export function PublicCard({
  title,
  description,
  children,
  footer,
  icon,
}: {
  title: ReactNode
  description?: ReactNode
  children?: ReactNode
  footer?: ReactNode
  icon?: ReactNode
}) {
  return (
    <PublicPage header={<PublicHeader />}>
      <Card>
        <CardHeader className="text-center">
          {icon ? <div className="mx-auto mb-2 flex justify-center">{icon}</div> : null}
          <CardTitle as="h1" className="text-2xl">
            {title}
          </CardTitle>
          {description ? <CardDescription>{description}</CardDescription> : null}
        </CardHeader>
        {children ? <CardContent className="space-y-4">{children}</CardContent> : null}
        {footer ? <CardFooter className="justify-center text-center text-sm text-muted">{footer}</CardFooter> : null}
      </Card>
    </PublicPage>
  )
}
